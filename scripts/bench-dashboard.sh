#!/usr/bin/env bash
# Runs the dashboard workload twice on a local cluster: the chart queries
# over the ontime table, then over a copy of the recent years pinned in the
# coordinator's memory (CACHE TABLE). Each run prints its table and writes
# a CSV and an SVG chart under $OUT.
#   STEPS=10,50 STEP_TIME=3s ROWS=200000 scripts/bench-dashboard.sh   # quick
#   KEEP=1 scripts/bench-dashboard.sh      # leave the cluster running
#   REUSE=1 scripts/bench-dashboard.sh     # use the cluster already up in $DIR
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
ROWS=${ROWS:-10000000}
BUFFER_POOL=${BUFFER_POOL:-3G}
DIR=${DIR:-.local/cluster}
OUT=${OUT:-.local/bench}
STEPS=${STEPS:-10,25,50,75,100,150,300}
STEP_TIME=${STEP_TIME:-10s}
# The pinned copy: a superset of the charts' slice (the last two years).
PIN_WHERE=${PIN_WHERE:-YearD >= 2009}
mkdir -p bin "$OUT"
go build -o bin/shoal ./cmd/shoal
if [[ -z "${REUSE:-}" ]]; then
  bin/shoal local down --dir "$DIR" >/dev/null 2>&1 || true
  bin/shoal local up --dir "$DIR" --rows "$ROWS" --buffer-pool "$BUFFER_POOL"
fi
if [[ -z "${KEEP:-}" ]]; then
  trap 'bin/shoal local down --dir "$DIR"' EXIT
fi
bin/shoal bench dashboard --dir "$DIR" --steps "$STEPS" --step-time "$STEP_TIME" \
  --csv "$OUT/dashboard-ontime.csv" --svg "$OUT/dashboard-ontime.svg"
echo
bin/shoal bench dashboard --dir "$DIR" --steps "$STEPS" --step-time "$STEP_TIME" \
  --setup "CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE $PIN_WHERE" \
  --table recent --teardown "UNCACHE TABLE IF EXISTS ontime.recent" \
  --csv "$OUT/dashboard-pinned.csv" --svg "$OUT/dashboard-pinned.svg"
