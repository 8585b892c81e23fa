#!/usr/bin/env bash
# The whole test suite: formatting, vet, and every package's tests with the
# race detector, including the end-to-end differential suite, which starts
# its own MariaDB primary and replicas on free loopback ports.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:" $unformatted >&2
  exit 1
fi
go vet ./...
# The compose files parse, both flavours (the last stage runs the MariaDB one).
if command -v docker-compose >/dev/null; then
  docker-compose -f docker-compose.yml config -q
  docker-compose -f docker-compose.yml -f docker-compose.mariadb.yml config -q
fi
go test -race -timeout 25m -count=1 ./... 2>&1 | tee /tmp/shoal-test.log
# The fuzz targets briefly (scripts/fuzz.sh runs them longer): query front
# end and ticket decoding, 200,000 inputs each (10-30 s; a count, not a
# duration, so Go 1.26's deadline race cannot fail the run: see fuzz.sh).
FUZZTIME=${FUZZTIME:-200000x} scripts/fuzz.sh 2>&1 | tee -a /tmp/shoal-test.log
# The soak once more without the race detector, whose shadow memory grows
# with the run: here its RSS bound holds (e2e/soak_test.go).
go test -count=1 -timeout 10m -run 'TestSoak$' ./e2e 2>&1 | tee -a /tmp/shoal-test.log
# The compose end-to-end stage (scripts/compose-test.sh): images built here,
# the MariaDB flavour up, differential queries and container faults, the
# benchmark, down -v. SKIP (with the reason) only when no Docker engine.
if ! command -v docker >/dev/null || ! docker info >/dev/null 2>&1; then
  echo "SKIP compose e2e: no Docker engine answers (docker info failed)" | tee -a /tmp/shoal-test.log
elif scripts/compose-test.sh 2>&1 | tee -a /tmp/shoal-test.log; then
  echo "PASS compose e2e" | tee -a /tmp/shoal-test.log
else
  echo "FAIL compose e2e (scripts/compose-test.sh)" | tee -a /tmp/shoal-test.log
  exit 1
fi
