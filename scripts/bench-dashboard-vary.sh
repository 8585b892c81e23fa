#!/usr/bin/env bash
# Dashboards without the result cache (issue 15, docs/benchmarks.md): the
# 15 charts with literals varying per query over a pinned slice, through
# Shoal and on in-memory DuckDB (one thread, one connection) on the same
# rows, then a concurrency ramp (each step varied, then with fixed texts:
# the cached figure), then CHURN distinct statements with the
# coordinator's RSS, pins and plan cache.
#   scripts/bench-dashboard-vary.sh [CLUSTER_DIR]       # default .local/cluster
#   STEPS=1,4,50,300 STEP_TIME=10s ROUNDS=20 CHURN=100000 scripts/bench-dashboard-vary.sh
#   WHERE="YearD >= 2005" scripts/bench-dashboard-vary.sh
# The DuckDB side is the module bench/duckdb (cgo; the first build links
# DuckDB's library and takes minutes), so the shoal binary does not link it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
DIR=${1:-${DIR:-.local/cluster}}
WHERE=${WHERE:-YearD >= 2005}
STEPS=${STEPS:-1,4,50,300}
STEP_TIME=${STEP_TIME:-10s}
ROUNDS=${ROUNDS:-20}
CHURN=${CHURN:-0}
if [[ ! -f "$DIR/cluster.json" ]]; then
  echo "no local cluster in $DIR: start one with bin/shoal local up --dir $DIR --rows N" >&2
  exit 1
fi
mkdir -p bin
(cd bench/duckdb && go build -o ../../bin/shoal-duckdb .)
bin/shoal-duckdb dashboard --vary --dir "$DIR" --where "$WHERE" --table recent \
  --setup "CACHE TABLE ontime.recent AS SELECT * FROM ontime.ontime WHERE $WHERE" \
  --teardown "UNCACHE TABLE IF EXISTS ontime.recent" \
  --steps "$STEPS" --step-time "$STEP_TIME" --rounds "$ROUNDS" --churn "$CHURN"
