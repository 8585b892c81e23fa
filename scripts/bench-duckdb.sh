#!/usr/bin/env bash
# Pinned tables vs DuckDB (docs/benchmarks.md): Percona's queries 1 and 2
# over ontime pinned in the coordinator's memory, beside in-memory DuckDB
# on the same rows with the same number of threads, the distributed path
# and MySQL, in one run, on a local cluster that is already up.
#
#   scripts/bench-duckdb.sh [CLUSTER_DIR]        # default .local/cluster
#   RUNS=5 DIRECT_RUNS=1 THREADS=2 scripts/bench-duckdb.sh
#   KEEP_DATA=1 scripts/bench-duckdb.sh          # keep the exported rows
#   SHOAL=/path/to/shoal scripts/bench-duckdb.sh # skip the build
#
# Steps: export the primary's rows to $OUT/ontime.tsv with a manifest
# (column types, queries); load them into DuckDB and time the queries
# (bin/shoal-duckdb compare from bench/duckdb, $OUT/duckdb.json); then through the
# coordinator time them pinned, distributed and directly, check every
# answer against MySQL's and print one table (shoal bench pinned).
# The export takes about 100 bytes per row of disk in $OUT.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
DIR=${1:-${DIR:-.local/cluster}}
OUT=${OUT:-$DIR/duckdb}
RUNS=${RUNS:-5}
DIRECT_RUNS=${DIRECT_RUNS:-1}
THREADS=${THREADS:-2}

if [[ ! -f "$DIR/cluster.json" ]]; then
  echo "no local cluster in $DIR: start one with bin/shoal local up --dir $DIR --rows N" >&2
  exit 1
fi
if [[ -z "${SHOAL:-}" ]]; then
  mkdir -p bin
  go build -o bin/shoal ./cmd/shoal
  SHOAL=bin/shoal
fi
# The DuckDB side is the Go module bench/duckdb (cgo; the first build
# links DuckDB's library and takes minutes).
(cd bench/duckdb && go build -o ../../bin/shoal-duckdb .)
mkdir -p "$OUT"
if [[ -z "${KEEP_DATA:-}" ]]; then
  trap 'rm -f "$OUT/ontime.tsv"' EXIT
fi

"$SHOAL" bench pinned --dir "$DIR" --export "$OUT"
bin/shoal-duckdb compare --manifest "$OUT/manifest.json" --threads "$THREADS" \
  --runs "$RUNS" --out "$OUT/duckdb.json"
if [[ -z "${KEEP_DATA:-}" ]]; then
  rm -f "$OUT/ontime.tsv" # DuckDB is done with it
fi
echo
"$SHOAL" bench pinned --dir "$DIR" --runs "$RUNS" --direct-runs "$DIRECT_RUNS" \
  --duckdb "$OUT/duckdb.json"
