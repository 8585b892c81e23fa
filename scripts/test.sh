#!/usr/bin/env bash
# The whole test suite: formatting, vet, every package's tests with the
# race detector (including the end-to-end differential suite, which starts
# its own MariaDB primary and replicas on free loopback ports), the fuzz
# targets briefly, the soak without the race detector, and the compose
# end-to-end test on a Docker engine.
#
# Every stage runs even when an earlier one failed, and each is reported
# (PASS, FAIL or SKIP with its reason) in a summary at the end; the script
# exits non-zero when any stage failed. The log is .local/test.log.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh || exit 1
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
mkdir -p .local
log=.local/test.log
: >"$log"
# Tests that skip a part for a missing client (e2e recordSkip: Node's
# mysql2 or mysqljs, PyMySQL, JDBC, the CLI, Chromium for the status page
# screenshots) append "Test: what: reason" here; each becomes a SKIP line
# of the summary.
export SHOAL_SKIP_LOG=$PWD/.local/test-skips.log
: >"$SHOAL_SKIP_LOG"
summary=()
failed=0

# stage NAME COMMAND...: runs the command, its output to the terminal and
# the log, and records the outcome.
stage() {
  local name=$1
  shift
  echo "=== stage: $name" | tee -a "$log"
  local start=$SECONDS
  if "$@" 2>&1 | tee -a "$log"; then
    summary+=("PASS $name ($((SECONDS - start)) s)")
  else
    summary+=("FAIL $name ($((SECONDS - start)) s)")
    failed=1
  fi
}

skip() {
  echo "SKIP $1: $2" | tee -a "$log"
  summary+=("SKIP $1: $2")
}

gofmt_check() {
  local unformatted
  unformatted=$(gofmt -l $(git ls-files '*.go'))
  if [ -n "$unformatted" ]; then
    echo "gofmt would change:" $unformatted
    return 1
  fi
}

compose_config() {
  docker-compose -f docker-compose.yml config -q &&
    docker-compose -f docker-compose.yml -f docker-compose.mariadb.yml config -q
}

# The compose stage's base images (debootstrap from Debian's archive,
# ~2 minutes the first time on a machine, cached after) are built in the
# background while the Go stages run: that is mostly download and
# unpacking. Then the static binary the shoal image holds is compiled once
# (CGO_ENABLED=0 -trimpath shares no build cache with the tests: ~2 minutes
# from cold) to warm its cache. The compose stage at the end waits for both.
docker_ok=0
if command -v docker >/dev/null && docker info >/dev/null 2>&1; then
  docker_ok=1
  bases_start=$SECONDS
  (deploy/images.sh --bases &&
    CGO_ENABLED=0 nice go build -trimpath -o /dev/null ./cmd/shoal) >.local/images-bases.log 2>&1 &
  bases_pid=$!
fi

stage gofmt gofmt_check
stage "go vet" go vet ./...
# bench/duckdb is a module of its own (DuckDB through cgo, kept out of the
# shoal binary): vetted, built and unit-tested here, its benchmark not run.
bench_duckdb_module() {
  (cd bench/duckdb && go vet ./... && go build -o /dev/null . && go test -count=1 ./...)
}
stage "bench/duckdb module" bench_duckdb_module
# The compose files parse, both flavours (the last stage runs the MariaDB one).
if command -v docker-compose >/dev/null; then
  stage "compose files parse" compose_config
else
  skip "compose files parse" "no docker-compose"
fi
# The timeout is per test binary: the e2e package alone took 23 min under
# the race detector on the 2-core machine of 2026-12-05 in CI (13 min on a
# quiet machine) before its long sweeps were sampled under it (below).
stage "go test -race ./..." go test -race -timeout 40m -count=1 ./...
# The fuzz targets briefly (scripts/fuzz.sh runs them longer): query front
# end and ticket decoding, 200,000 inputs each (10-30 s; a count, not a
# duration, so Go 1.26's deadline race cannot fail the run: see fuzz.sh).
export FUZZTIME=${FUZZTIME:-200000x}
stage "fuzz ($FUZZTIME per target)" scripts/fuzz.sh
# The long differential sweeps whole, without the race detector: under it
# the e2e package runs one case in eight of the function matrix, one in four of the
# generated queries and of those over pins, of the live pins' WHERE hunt
# and of the type matrix, of the generated statements prepared and
# executed in the binary protocol (TestRandomQueriesBinary: 300 here,
# about a minute), of TestTPCH's statements over lineitem and orders,
# 16 pin refreshes of the churn instead of 40, one in 12 of the BI tools'
# statements (TestBIToolSQL, 25-50 s whole), one in six of the SaaS
# hunt's (TestHuntSaaSData, ~15 s whole),
# and a 15 s soak and load mix (e2e/race_test.go raceShare: the race
# detector is 5-10x slower, and those two tests were half of the package's
# 13-23 min); here every case runs, docs/functions.md is compared with what
# the matrix finds, the 40 s soak's RSS bound holds (the detector's
# shadow memory grows with the run), and TestLoadMix runs 150 connections
# for 40 s (100 for 15 s under the detector).
stage "e2e sweeps and soak without the race detector" go test -count=1 -timeout 15m \
  -run 'TestSoak$|TestFunctionMatrix$|TestRandomQueries$|TestRandomQueriesWindowed$|TestRandomQueriesBinary$|TestPinnedWholeTable$|TestPinnedQueryResult$|TestPinnedLonePartition$|TestPinnedValueFilters$|TestLivePinHuntWhere$|TestTypeMatrix$|TestTypeMatrixRandom$|TestPinnedChurn$|TestLoadMix$|TestTPCH$|TestBIToolSQL$|TestHuntSaaSData$' ./e2e
# The compose end-to-end stage (scripts/compose-test.sh): images built here,
# the MariaDB flavour up, differential queries and container faults, the
# benchmark, down -v.
if [ $docker_ok = 0 ]; then
  skip "compose e2e" "no Docker engine answers (docker info failed)"
else
  # Waited for here, in this shell: a stage runs its command in a
  # pipeline's subshell, which cannot wait for this shell's children.
  bases_rc=0
  wait "$bases_pid" || bases_rc=$?
  bases_took=$((SECONDS - bases_start))
  base_images() {
    cat .local/images-bases.log
    echo "base images and the static build's cache ready ${bases_took} s after they started"
    return "$bases_rc"
  }
  stage "compose base images (built in the background)" base_images
  stage "compose e2e" scripts/compose-test.sh
fi

while IFS= read -r line; do
  [ -n "$line" ] && summary+=("SKIP $line")
done < <(sort -u "$SHOAL_SKIP_LOG")

echo
echo "summary:"
printf '  %s\n' "${summary[@]}" | tee -a "$log"
exit $failed
