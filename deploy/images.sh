#!/usr/bin/env bash
# Builds the images docker-compose.yml needs without a container registry:
#
#   shoal-base:local     Debian bookworm (debootstrap --variant=minbase)
#   shoal-mariadb:local  the same rootfs with mariadb-server and -client
#   shoal:local          shoal-base:local plus a shoal binary built here
#                        (CGO_ENABLED=0, version from git describe)
#
# The two base images come from a rootfs made by debootstrap from Debian's
# package archive and `docker import`; nothing is pulled. They are kept
# between runs (skipped when present; --rebuild makes them again). The shoal
# image is rebuilt every run (a few seconds), since the source changes.
#
#   deploy/images.sh              # all three, bases cached
#   deploy/images.sh --rebuild    # the bases too
#   deploy/images.sh --bases      # only the bases
#
# Root is needed for debootstrap and chroot. Work files (rootfs, binary)
# go to a directory of the run's own under $SHOAL_IMAGES_WORK (default
# /var/tmp/shoal-images), never the repository, and are removed at exit.
# SHOAL_IMAGE names the shoal image (default shoal:local). SHOAL_DEBIAN_MIRROR overrides the archive
# (http://deb.debian.org/debian).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/sbin:/sbin

rebuild=0 shoal=1
for a in "$@"; do
  case $a in
    --rebuild) rebuild=1 ;;
    --bases) shoal=0 ;;
    -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "images.sh: unknown argument $a (--rebuild, --bases)" >&2; exit 2 ;;
  esac
done

BASE_IMAGE=${SHOAL_BASE_IMAGE:-shoal-base:local}
MARIADB_IMAGE=${SHOAL_MARIADB_IMAGE:-shoal-mariadb:local}
SHOAL_IMAGE=${SHOAL_IMAGE:-shoal:local}
WORK=${SHOAL_IMAGES_WORK:-/var/tmp/shoal-images}
MIRROR=${SHOAL_DEBIAN_MIRROR:-http://deb.debian.org/debian}
SECURITY_MIRROR=${SHOAL_DEBIAN_SECURITY_MIRROR:-http://deb.debian.org/debian-security}
SUITE=bookworm

log() { printf '[images %s] %s\n' "$(date +%T)" "$*" >&2; }
have_image() { docker image inspect "$1" >/dev/null 2>&1; }
image_id() { docker image inspect -f '{{.Id}}' "$1" 2>/dev/null || true; }
# drop_replaced IMAGE OLD_ID: remove the image IMAGE named before it was
# rebuilt (and its untagged parents), so rebuilds do not pile up; one still
# used by a container stays.
drop_replaced() {
  if [ -n "$2" ] && [ "$2" != "$(image_id "$1")" ]; then
    docker rmi "$2" >/dev/null 2>&1 || true
  fi
}

if ! docker info >/dev/null 2>&1; then
  echo "images.sh: no Docker engine answers (docker info failed)" >&2
  exit 1
fi

# Each run works in a directory of its own under $WORK (two work trees may
# build at once), removed at exit.
mkdir -p "$WORK"
run=$(mktemp -d "$WORK/run.XXXXXX")
rootfs=$run/rootfs
mounts_under() { awk -v p="$1/" 'index($2, p) == 1 {print $2}' /proc/mounts | sort -r; }
cleanup() {
  for m in $(mounts_under "$rootfs"); do umount -l "$m" || true; done
  # Never rm -rf through a mount (the chroot's /proc, /sys).
  if [ -z "$(mounts_under "$rootfs")" ]; then rm -rf "$run"; fi
}
trap cleanup EXIT

bootstrap() {
  if ! command -v debootstrap >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      log "installing debootstrap"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null; }
    else
      echo "images.sh: debootstrap is needed: sudo apt-get install -y debootstrap" >&2
      exit 1
    fi
  fi
  if [ "$(id -u)" != 0 ]; then
    echo "images.sh: debootstrap and chroot need root (sudo deploy/images.sh)" >&2
    exit 1
  fi
  : >"$run/chroot.log"
  log "debootstrap --variant=minbase $SUITE from $MIRROR"
  debootstrap --variant=minbase --include=ca-certificates "$SUITE" "$rootfs" "$MIRROR" >"$run/debootstrap.log" 2>&1 ||
    { tail -20 "$run/debootstrap.log" >&2; exit 1; }
  cat >"$rootfs/etc/apt/sources.list" <<SOURCES
deb $MIRROR $SUITE main
deb $MIRROR $SUITE-updates main
deb $SECURITY_MIRROR $SUITE-security main
SOURCES
  # Images stay small: no documentation, manual pages or translations.
  cat >"$rootfs/etc/dpkg/dpkg.cfg.d/01-shoal-nodoc" <<'NODOC'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
NODOC
  # No service starts inside the chroot.
  printf '#!/bin/sh\nexit 101\n' >"$rootfs/usr/sbin/policy-rc.d"
  chmod +x "$rootfs/usr/sbin/policy-rc.d"
  in_chroot "apt-get update -qq && apt-get upgrade -y -qq"
}

in_chroot() {
  cp /etc/resolv.conf "$rootfs/etc/resolv.conf"
  mountpoint -q "$rootfs/proc" || mount -t proc proc "$rootfs/proc"
  local rc=0
  DEBIAN_FRONTEND=noninteractive LC_ALL=C chroot "$rootfs" /bin/sh -c "$1" >>"$run/chroot.log" 2>&1 || rc=$?
  umount -l "$rootfs/proc"
  if [ $rc != 0 ]; then
    echo "images.sh: in the rootfs: $1: exit $rc; end of $run/chroot.log:" >&2
    tail -20 "$run/chroot.log" >&2
    exit $rc
  fi
  : >"$rootfs/etc/resolv.conf"
}

# import_rootfs IMAGE CHANGE...: tar the rootfs (trimmed of caches) into
# docker import.
import_rootfs() {
  local image=$1
  shift
  rm -rf "$rootfs"/var/cache/apt/*.bin "$rootfs"/var/cache/apt/archives/*.deb "$rootfs"/var/lib/apt/lists/* \
    "$rootfs"/var/log/*.log "$rootfs"/var/log/apt/* "$rootfs"/tmp/* "$rootfs"/usr/share/doc/*/changelog*
  local args=() old
  for c in "$@"; do args+=(--change "$c"); done
  old=$(image_id "$image")
  tar --numeric-owner --xattrs -C "$rootfs" -c . |
    docker import "${args[@]}" --message "shoal deploy/images.sh: debian $SUITE" - "$image" >/dev/null
  drop_replaced "$image" "$old"
  log "imported $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1/1e6}'))"
}

base_env=(
  'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
  'ENV LANG=C.UTF-8'
  'CMD ["/bin/bash"]'
)

need_base=0 need_mariadb=0
if [ $rebuild = 1 ] || ! have_image "$BASE_IMAGE"; then need_base=1; fi
if [ $rebuild = 1 ] || ! have_image "$MARIADB_IMAGE"; then need_mariadb=1; fi
if [ $need_base = 1 ] || [ $need_mariadb = 1 ]; then
  t0=$SECONDS
  bootstrap
  if [ $need_base = 1 ]; then
    import_rootfs "$BASE_IMAGE" "${base_env[@]}"
  fi
  if [ $need_mariadb = 1 ]; then
    log "installing mariadb-server and mariadb-client into the rootfs"
    in_chroot "apt-get update -qq && apt-get install -y -qq --no-install-recommends mariadb-server mariadb-client"
    # The entrypoint (deploy/compose/mariadb/entrypoint.sh, mounted by the
    # compose file) makes its own data directory; the package's is dropped.
    rm -rf "$rootfs"/var/lib/mysql/*
    mkdir -p "$rootfs/run/mysqld"
    in_chroot "chown mysql:mysql /run/mysqld /var/lib/mysql"
    import_rootfs "$MARIADB_IMAGE" "${base_env[@]}" 'EXPOSE 3306' 'CMD ["mariadbd"]'
  fi
  log "base images built in $((SECONDS - t0)) s"
else
  log "base images present: $BASE_IMAGE $MARIADB_IMAGE (--rebuild to make them again)"
fi

if [ $shoal = 1 ]; then
  t0=$SECONDS
  ctx=$run/shoal-context
  mkdir -p "$ctx"
  version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
  log "building shoal $version (CGO_ENABLED=0)"
  CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=$version" -o "$ctx/shoal" ./cmd/shoal
  cp deploy/images/Dockerfile.shoal "$ctx/Dockerfile"
  # The classic builder: it uses the local base image as it is (BuildKit,
  # where installed, would ask a registry about it).
  old=$(image_id "$SHOAL_IMAGE")
  DOCKER_BUILDKIT=0 docker build -q --build-arg BASE="$BASE_IMAGE" --build-arg VERSION="$version" -t "$SHOAL_IMAGE" "$ctx" >/dev/null 2>"$run/build.log" ||
    { cat "$run/build.log" >&2; exit 1; }
  drop_replaced "$SHOAL_IMAGE" "$old"
  log "built $SHOAL_IMAGE ($version) in $((SECONDS - t0)) s"
fi
