#!/usr/bin/env bash
# Fuzz the hostile-input front ends: the query front end (parse → plan →
# render, planner.FuzzPlan) and ticket decoding (ticket.FuzzTicketDecode).
# FUZZTIME is the budget per target, a duration or a count of executions
# (default 10m; CI runs 200000x each from scripts/test.sh). go test takes
# one -fuzz target per invocation.
#
# Go 1.26's fuzz coordinator can end a duration budget with a spurious
# "context deadline exceeded" failure when a worker is mid-input at the
# deadline (golang/go#75804, fixed in Go 1.27). A run that fails with only
# that, and writes no failing input, is reported and not counted; a count
# budget (Nx, what CI uses) has no deadline to race.
#
# The growing corpus stays in go's cache ($(go env GOCACHE)/fuzz), not in
# the repository. go test writes to <pkg>/testdata/fuzz/<Target>/ only an
# input that failed: that is a bug. Fix it and commit the file with the fix
# as its regression (plain `go test` replays it); never commit one without
# the fix.
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH=$PATH:/usr/local/go/bin
fuzztime=${FUZZTIME:-10m}
status=0
for target in planner:FuzzPlan ticket:FuzzTicketDecode; do
  pkg=${target%%:*} fn=${target#*:}
  echo "fuzzing $fn in ./$pkg for $fuzztime"
  log=$(mktemp)
  if ! go test -run '^$' -fuzz "^$fn\$" -fuzztime "$fuzztime" "./$pkg" 2>&1 | tee "$log"; then
    if grep -q 'context deadline exceeded' "$log" && ! grep -qE 'Failing input written|panic:|_test\.go:[0-9]+:' "$log"; then
      echo "$fn: the fuzz coordinator's deadline race (golang/go#75804), not a finding" >&2
    else
      status=1
    fi
  fi
  rm -f "$log"
done
new=$(git status --porcelain --untracked-files=all -- '*/testdata/fuzz/*' || true)
if [ -n "$new" ]; then
  echo "new failing inputs (bugs: fix them, then commit each with its fix):" >&2
  echo "$new" >&2
  status=1
fi
exit $status
