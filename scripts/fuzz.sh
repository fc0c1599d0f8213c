#!/usr/bin/env bash
# fuzz.sh DURATION — runs every Go fuzz target of the module for DURATION each.
set -euo pipefail
cd "$(dirname "$0")/.."
dur=${1:-60s}
status=0
while IFS= read -r line; do
  file=${line%%:*}
  target=$(sed -E 's/^func (Fuzz[A-Za-z0-9_]*).*/\1/' <<<"${line#*:}")
  pkg=./$(dirname "$file")
  echo "fuzz $pkg $target ($dur)"
  go test -run '^$' -fuzz "^${target}\$" -fuzztime "$dur" "$pkg" >/tmp/teammem-fuzz.log 2>&1 || { cat /tmp/teammem-fuzz.log; status=1; }
done < <(git ls-files '*_test.go' | xargs grep -H -E '^func Fuzz[A-Za-z0-9_]*\(' || true)
exit $status
