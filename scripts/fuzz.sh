#!/usr/bin/env bash
# Fuzz the hostile-input front ends: the query front end (parse → plan →
# render, planner.FuzzPlan) and ticket decoding (ticket.FuzzTicketDecode).
# FUZZTIME is the time per target (default 10m; CI runs 20s each from
# scripts/test.sh). go test takes one -fuzz target per invocation.
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
  if ! go test -run '^$' -fuzz "^$fn\$" -fuzztime "$fuzztime" "./$pkg"; then
    status=1
  fi
done
new=$(git status --porcelain --untracked-files=all -- '*/testdata/fuzz/*' || true)
if [ -n "$new" ]; then
  echo "new failing inputs (bugs: fix them, then commit each with its fix):" >&2
  echo "$new" >&2
  status=1
fi
exit $status
