#!/usr/bin/env bash
# bench-put.sh REV... — the write path's CPU per PUT of several builds, in one
# sitting on Postgres: builds each REV (a commit, or "." for the work tree),
# then runs BENCH_ROUNDS rounds, each starting every build in turn (the order
# rotated per round) on a fresh database and data directory, pinned as
# bench-server.sh pins them, and running `teammem-load -scenario put -entries
# 20 -d $BENCH_D` with the admin token, then with a token that may only write
# (loadgen/**:write), whose writes are cut by the repository's review policy.
# One line per run; compare the medians, pairwise by round when the machine
# is shared. Needs psql (for the databases).
#   BENCH_ROUNDS=3  BENCH_D=5s  TEAMMEM_BENCH_DATABASE_URL (see bench-lib.sh)
#   e.g. scripts/bench-put.sh 4c1aa55 3d5f7a6 .
set -euo pipefail
cd "$(dirname "$0")/.."
D=${BENCH_D:-5s} ROUNDS=${BENCH_ROUNDS:-3}
[ $# -ge 1 ] || { echo "usage: scripts/bench-put.sh REV... (a commit, or . for the work tree)" >&2; exit 2; }
. scripts/bench-lib.sh
bench_build_revs "$@" # the load generator from the work tree, one client for every build
root=$bin
server_on=() load_on=()
bench_pin || true
bench_pg_url
base=${bench_url%%\?*} base=${base%/*}
revs=("$@")
for r in $(seq 1 "$ROUNDS"); do
  for k in $(seq 0 $(($# - 1))); do
    i=$(( (k + r - 1) % $# + 1 ))
    db=bench_put_${r}_$i
    PGOPTIONS=--client-min-messages=warning psql "$bench_url" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
    bin=$root/b$i bench_start "${server_on[@]}" -- --log-level warn --database-url "$base/$db?sslmode=disable" --migrate
    "$bin/b$i/teammem-server" token create --data-dir "$data" --database-url "$base/$db?sslmode=disable" \
      --subject bench --grant 'loadgen/**:write' >"$data/write.token" 2>/dev/null
    sleep 1
    for tok in admin write; do
      res=$("${load_on[@]}" "$bin/teammem-load" -server "http://$addr" -token-file "$data/$tok.token" -server-pid "$pid" \
        -scenario put -entries 20 -d "$D" 2>&1 | tail -n1)
      echo "round $r  ${revs[$((i - 1))]}  $tok token  load $(cut -d' ' -f1 /proc/loadavg)  $res"
    done
    bench_stop
    psql "$bench_url" -qc "DROP DATABASE $db" >/dev/null
  done
done
