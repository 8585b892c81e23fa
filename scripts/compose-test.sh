#!/usr/bin/env bash
# The compose end-to-end test: build the images (deploy/images.sh, base
# images cached), bring the MariaDB flavour of docker-compose.yml up under a
# project name of its own with a small data set, run the differential
# queries and the container faults (package deploy/compose/e2e), run the
# benchmark as a user would, then `down -v` and check that no container,
# network or volume of the project is left. Prints the time of each step.
#
#   scripts/compose-test.sh            # ROWS=50000 by default
#   ROWS=200000 scripts/compose-test.sh
#   KEEP=1 scripts/compose-test.sh     # leave the cluster up (down -v by hand;
#                                      # the next run removes it otherwise)
#
# Needs a Docker engine with Compose (docker compose or docker-compose),
# root (for debootstrap, the first time) and Go.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/sbin:/sbin

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null; then
  compose=(docker-compose)
else
  echo "compose-test: neither 'docker compose' nor docker-compose is installed" >&2
  exit 1
fi
if ! docker info >/dev/null 2>&1; then
  echo "compose-test: no Docker engine answers (docker info failed)" >&2
  exit 1
fi

# Projects of earlier runs whose script is gone (killed, or KEEP=1) are
# removed first; a run still going (another work tree) is left alone.
for p in $(docker ps -a --format '{{.Label "com.docker.compose.project"}}' | grep -E '^shoal-e2e-[0-9]+-[0-9]+$' | sort -u); do
  if ! kill -0 "${p##*-}" 2>/dev/null; then
    echo "compose-test: removing $p, left by a run that is gone" >&2
    docker ps -aq --filter "label=com.docker.compose.project=$p" | xargs -r docker rm -f >/dev/null
    docker network ls -q --filter "label=com.docker.compose.project=$p" | xargs -r docker network rm >/dev/null
    docker volume ls -q --filter "label=com.docker.compose.project=$p" | xargs -r docker volume rm >/dev/null
  fi
done

project=shoal-e2e-$(date +%s)-$$
export COMPOSE_PROJECT_NAME=$project
export COMPOSE_FILE=docker-compose.yml:docker-compose.mariadb.yml:deploy/compose/e2e/docker-compose.e2e.yml
export ROWS=${ROWS:-50000} BUFFER_POOL=${BUFFER_POOL:-128M}
export SHOAL_PORT='' SHOAL_HTTP_PORT='' # any free loopback port
# The shoal image of this run, from this work tree: another work tree's
# run on the same engine may be building shoal:local at the same time.
export SHOAL_IMAGE=shoal:$project
SHOAL_CLUSTER_SECRET=$(head -c 16 /dev/urandom | od -An -tx1 | tr -d ' \n')
export SHOAL_CLUSTER_SECRET

declare -a report
step() { # step NAME SECONDS
  report+=("$(printf '  %-34s %5d s' "$1" "$2")")
  echo "compose-test: $1: $2 s" >&2
}
cleaned=0
down() {
  [ $cleaned = 1 ] && return 0
  cleaned=1
  # Every volume the project's containers mount, named or anonymous.
  local mounts
  mounts=$(docker ps -aq --filter "label=com.docker.compose.project=$project" |
    xargs -r docker inspect -f '{{range .Mounts}}{{if eq .Type "volume"}}{{.Name}} {{end}}{{end}}')
  local t0=$SECONDS
  "${compose[@]}" --profile bench down -v --remove-orphans --timeout 5 >/dev/null 2>&1 || true
  step "down -v" $((SECONDS - t0))
  local left
  left=$(docker ps -aq --filter "label=com.docker.compose.project=$project")
  left+=$(docker network ls -q --filter "label=com.docker.compose.project=$project")
  left+=$(docker volume ls -q --filter "label=com.docker.compose.project=$project")
  for v in $mounts; do
    if docker volume inspect "$v" >/dev/null 2>&1; then left+=" volume $v"; fi
  done
  if [ -n "$left" ]; then
    echo "compose-test: FAIL: down -v left containers, networks or volumes of $project:" >&2
    echo "$left" >&2
    return 1
  fi
  echo "compose-test: down -v left no container, network or volume of $project (checked labels and the $(wc -w <<<"$mounts") volumes its containers mounted)" >&2
}
on_exit() {
  local rc=$?
  if [ $rc != 0 ]; then
    echo "compose-test: failed; the cluster's state and logs:" >&2
    "${compose[@]}" ps >&2 || true
    "${compose[@]}" logs --tail 30 >&2 || true
  fi
  if [ "${KEEP:-0}" = 1 ]; then
    echo "compose-test: KEEP=1: cluster $project left up; stop it with:" >&2
    echo "  COMPOSE_PROJECT_NAME=$project COMPOSE_FILE=$COMPOSE_FILE ${compose[*]} down -v" >&2
  else
    down || rc=1
    docker rmi "$SHOAL_IMAGE" >/dev/null 2>&1 || true
  fi
  printf '%s\n' "compose-test: times (ROWS=$ROWS)" "${report[@]}" >&2
  exit $rc
}
trap on_exit EXIT

t0=$SECONDS
deploy/images.sh
step "images (deploy/images.sh)" $((SECONDS - t0))

t0=$SECONDS
echo "compose-test: up -d project $project, ROWS=$ROWS" >&2
"${compose[@]}" up -d --no-build
step "up -d (incl. load)" $((SECONDS - t0))
# `up -d` returns once the coordinator has started after the load and
# replication caught up; healthy is the catalog loaded.
for _ in $(seq 120); do
  st=$(docker inspect -f '{{.State.Health.Status}}' "$("${compose[@]}" ps -q coordinator)")
  [ "$st" = healthy ] && break
  sleep 1
done
[ "$st" = healthy ] || { echo "compose-test: coordinator is $st" >&2; exit 1; }
step "up -d, coordinator healthy" $((SECONDS - t0))
"${compose[@]}" logs --no-color loader | grep -E "ready in|loaded" >&2 || true

export SHOAL_COMPOSE=1 SHOAL_COMPOSE_CMD="${compose[*]}"
SHOAL_COMPOSE_COORDINATOR=$("${compose[@]}" port coordinator 4000)
SHOAL_COMPOSE_HTTP=$("${compose[@]}" port coordinator 4080)
SHOAL_COMPOSE_PRIMARY=$("${compose[@]}" port primary 3306)
export SHOAL_COMPOSE_COORDINATOR SHOAL_COMPOSE_HTTP SHOAL_COMPOSE_PRIMARY
echo "compose-test: coordinator $SHOAL_COMPOSE_COORDINATOR (http $SHOAL_COMPOSE_HTTP), primary $SHOAL_COMPOSE_PRIMARY" >&2

t0=$SECONDS
go test -count=1 -v -timeout 10m ./deploy/compose/e2e
step "go test (differential, faults)" $((SECONDS - t0))

t0=$SECONDS
"${compose[@]}" --profile bench run --rm bench
step "bench (--queries core)" $((SECONDS - t0))
# `run` started the loader again (a dependency): it must have loaded nothing.
last=$("${compose[@]}" logs --no-color --tail 1 loader)
echo "$last" >&2
grep -q "nothing to load" <<<"$last" || { echo "compose-test: FAIL: the loader ran again for bench and did not skip the load" >&2; exit 1; }
