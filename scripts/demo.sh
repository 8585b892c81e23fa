#!/usr/bin/env bash
# Builds shoal, starts a local cluster (a MariaDB primary, two GTID replicas,
# a worker beside each and a coordinator) with the ontime sample, and runs
# Percona's query 1 (and 2) directly on one replica and through Shoal,
# printing both results, both timings and the ratio.
#   ROWS=1000000 scripts/demo.sh     # a smaller data set
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/deps.sh --demo
export PATH=$PATH:/usr/local/go/bin:/usr/sbin
ROWS=${ROWS:-10000000}
# Each server's InnoDB buffer pool; 10M rows take ~2.8 GB per server, and a
# scan that does not fit in memory measures the disk, not the engine.
BUFFER_POOL=${BUFFER_POOL:-3G}
DIR=${DIR:-.local/cluster}
mkdir -p bin
go build -o bin/shoal ./cmd/shoal
bin/shoal local down --dir "$DIR" >/dev/null 2>&1 || true
bin/shoal local up --dir "$DIR" --rows "$ROWS" --buffer-pool "$BUFFER_POOL"
# Warm both replicas' buffer pools so that direct and Shoal runs both read
# from memory.
bin/shoal bench --dir "$DIR" --runs 1 >/dev/null
bin/shoal bench --dir "$DIR" -v
echo
echo "The cluster keeps running; stop it with: bin/shoal local down --dir $DIR"
