#!/usr/bin/env bash
# leakcheck.sh CMD... — runs CMD, then fails if any process CMD started (at
# any depth: servers, agents, Postgres clusters, test binaries) is still
# alive, naming each one and ending it.
#
# Every process started under CMD inherits LEAKCHECK_TAGS, which holds a tag
# unique to this run (runs nest: an inner run appends its own tag), so the
# check finds exactly what this run started and nothing of the user's. A
# program that replaces its whole environment escapes it; none of ours does
# (e2e tests only drop TEAMMEM_* variables).
set -uo pipefail

tag="lc$$x$RANDOM$RANDOM"
export LEAKCHECK_TAGS="${LEAKCHECK_TAGS:+$LEAKCHECK_TAGS,}$tag"
"$@"
status=$?
export -n LEAKCHECK_TAGS # what the check itself runs is not tagged

# tagged lists the pids (not this script) whose environment carries the tag.
tagged() {
  grep -lzsE "^LEAKCHECK_TAGS=(.*,)?$tag(,|\$)" /proc/[0-9]*/environ 2>/dev/null |
    sed -E 's|^/proc/([0-9]+)/environ$|\1|' | grep -vx "$$"
}

# A process stopping on its own (a server finishing its shutdown) gets a
# few seconds.
left=
for _ in $(seq 1 50); do
  left=$(tagged)
  [ -z "$left" ] && break
  sleep 0.1
done
if [ -n "$left" ]; then
  echo "leakcheck: processes started by '$*' are still running:" >&2
  for pid in $left; do
    cmd=$(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)
    cwd=$(readlink "/proc/$pid/cwd" 2>/dev/null)
    echo "  pid $pid: ${cmd:-?} (cwd ${cwd:-?})" >&2
  done
  kill -KILL $left 2>/dev/null
  exit 1
fi
[ "$status" = 0 ] && echo "leakcheck: no process left behind"
exit "$status"
