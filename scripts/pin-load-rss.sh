#!/bin/bash
# Peak RSS of a coordinator while it loads a pin, against its RSS after the
# load: docs/benchmarks.md, "Pin load memory".
#
#   scripts/pin-load-rss.sh BINARY PORT [CLUSTER_DIR] [STATEMENT]
#
# Starts a coordinator of BINARY on the replicas and workers of the local
# cluster in CLUSTER_DIR (default .local/cluster), listening on PORT (and
# PORT+1 for HTTP; pick free ones), samples its VmRSS every 50 ms while it
# runs STATEMENT (default CACHE TABLE ontime.ontime), and prints its RSS
# before, VmHWM, RSS 5 s after (the store hands memory back to the OS after
# a load), the pin's Memory_bytes and rows, and the ratios peak/after and
# (peak-before)/(after-before). A fresh process each run, so VmHWM is this
# load's. Alternate two binaries on the same cluster to compare them.
set -euo pipefail
bin=$1 port=$2 dir=${3:-.local/cluster} stmt=${4:-"CACHE TABLE ontime.ontime"}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
sed -e "s/^listen: .*/listen: 127.0.0.1:$port/" -e "s/^http_listen: .*/http_listen: 127.0.0.1:$((port + 1))/" \
	"$dir/coordinator.yaml" >"$work/c.yaml"
"$bin" coordinator --config "$work/c.yaml" >"$work/log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$work"' EXIT
for _ in $(seq 100); do
	mariadb -h127.0.0.1 -P"$port" -uroot -e 'select 1' >/dev/null 2>&1 && break
	sleep 0.2
done
sleep 2
rss() { awk "/$1/{print \$2}" /proc/$pid/status; }
before=$(rss VmRSS)
(while kill -0 $pid 2>/dev/null; do rss VmRSS >>"$work/rss"; sleep 0.05; done) &
sampler=$!
trap 'kill $sampler $pid 2>/dev/null; wait $sampler 2>/dev/null; rm -rf "$work"' EXIT
start=$(date +%s.%N)
mariadb -h127.0.0.1 -P"$port" -uroot ontime -e "$stmt"
took=$(echo "$(date +%s.%N) - $start" | bc)
hwm=$(rss VmHWM)
sleep 5
after=$(rss VmRSS)
pin=$(mariadb -h127.0.0.1 -P"$port" -uroot -N -e 'SHOW CACHED TABLES' | awk -F'\t' '{print $5 " bytes, " $4 " rows"}')
echo "before ${before} kB, peak (VmHWM) ${hwm} kB, after ${after} kB; pin ${pin}; load ${took} s;" \
	"peak/after $(echo "scale=2; $hwm/$after" | bc), (peak-before)/(after-before) $(echo "scale=2; ($hwm-$before)/($after-$before)" | bc);" \
	"load average $(cut -d' ' -f1 /proc/loadavg)"
