#!/usr/bin/env bash
# bench-writes.sh REV... — the write benchmarks of several builds side by
# side, in one sitting: builds each REV (a commit, or "." for the work
# tree), then for each store and each case runs BENCH_ROUNDS rounds, each
# starting every build in turn (the order rotated per round) on a fresh
# data directory (and, on Postgres, a fresh database), pinned as
# bench-server.sh pins them. Each run warms the server up for BENCH_WARM
# and then measures for BENCH_D with one load generator (built from the
# work tree, the same client for every build). One line per run, then the
# median per store, case and build; compare pairwise by round when the
# machine is shared. First, the floor: the same cases against a handler
# that only answers (teammem-load -serve-floor), what the HTTP stack alone
# costs on this machine.
#   BENCH_ROUNDS=3  BENCH_D=5s  BENCH_WARM=3s
#   BENCH_STORES="sqlite postgres"
#   BENCH_CASES="put:20:16 put:1000:16 cas:20:8" (scenario:entries:concurrency)
#   TEAMMEM_BENCH_DATABASE_URL (see bench-lib.sh); Postgres needs psql
#   e.g. scripts/bench-writes.sh 403ad44 .
set -euo pipefail
cd "$(dirname "$0")/.."
D=${BENCH_D:-5s} WARM=${BENCH_WARM:-3s} ROUNDS=${BENCH_ROUNDS:-3}
STORES=${BENCH_STORES:-sqlite postgres}
CASES=${BENCH_CASES:-put:20:16 put:1000:16 cas:20:8}
[ $# -ge 1 ] || { echo "usage: scripts/bench-writes.sh REV... (a commit, or . for the work tree)" >&2; exit 2; }
. scripts/bench-lib.sh
bench_build_revs "$@" # the load generator from the work tree, one client for every build
root=$bin
server_on=() load_on=()
bench_pin || true
revs=("$@")
results=$root/results

echo "== floor (a handler that only answers), load $(cut -d' ' -f1 /proc/loadavg)"
"${server_on[@]}" "$root/teammem-load" -serve-floor 127.0.0.1:0 >"$root/floor.out" &
fpid=$! faddr=""
for _ in $(seq 1 100); do
  faddr=$(awk '/listening on/ {print $5}' "$root/floor.out")
  [ -n "$faddr" ] && break
  sleep 0.1
done
for c in $CASES; do
  IFS=: read -r scenario entries conc <<<"$c"
  [ "$scenario" = cas ] && continue # the floor handler keeps no state to compare and swap
  "${load_on[@]}" "$root/teammem-load" -server "http://$faddr" -token floor -server-pid $fpid \
    -scenario "$scenario" -entries "$entries" -c "$conc" -d "$D" 2>&1 | tail -n1 || true
done
kill -TERM $fpid; wait $fpid || true

for store in $STORES; do
  args=()
  case $store in
    sqlite) ;;
    postgres)
      bench_pg_url
      base=${bench_url%%\?*} base=${base%/*}
      ;;
    *) echo "unknown store $store (want sqlite or postgres)"; exit 2 ;;
  esac
  for c in $CASES; do
    IFS=: read -r scenario entries conc <<<"$c"
    echo "== $store $scenario@$entries c=$conc"
    for r in $(seq 1 "$ROUNDS"); do
      for k in $(seq 0 $(($# - 1))); do
        i=$(( (k + r - 1) % $# + 1 ))
        if [ "$store" = postgres ]; then
          db=bench_writes_${r}_$i
          PGOPTIONS=--client-min-messages=warning psql "$bench_url" -qc "DROP DATABASE IF EXISTS $db" -c "CREATE DATABASE $db" >/dev/null
          args=(--database-url "$base/$db?sslmode=disable" --migrate)
        fi
        bin=$root/b$i bench_start "${server_on[@]}" -- --log-level warn "${args[@]}"
        load=("${load_on[@]}" "$root/teammem-load" -server "http://$addr" -token-file "$data/admin.token" -server-pid "$pid"
          -scenario "$scenario" -entries "$entries" -c "$conc")
        "${load[@]}" -d "$WARM" >/dev/null 2>&1 || true
        res=$("${load[@]}" -d "$D" 2>&1 | tail -n1)
        echo "round $r  ${revs[$((i - 1))]}  load $(cut -d' ' -f1 /proc/loadavg)  $res"
        echo "$store $scenario@$entries ${revs[$((i - 1))]} $res" >>"$results"
        bench_stop
        if [ "$store" = postgres ]; then psql "$bench_url" -qc "DROP DATABASE $db" >/dev/null; fi
      done
    done
  done
done

# The medians: requests (or, for cas, acknowledged writes) per second and
# server CPU per request (per acknowledged write).
echo "== medians of $ROUNDS (store case build: rate, server cpu)"
awk '
  { key = $1 " " $2 " " $3
    rate = ""; cpu = ""
    for (f = 4; f <= NF; f++) {
      if ($f == "req/s") rate = $(f - 1)
      if ($f == "acked") { acked = $(f + 1); sub(/,$/, "", acked) }
      if ($f == "cpu") cpu = $(f + 1)
      if ($f == "in") secs = $(f + 1)
    }
    if ($2 ~ /^cas/) { sub(/s$/, "", secs); rate = sprintf("%.1f", acked / secs) }
    n[key]++; r[key, n[key]] = rate; c[key, n[key]] = cpu; order[key] = NR
  }
  function median(a, key, m,   i, j, t, v) {
    for (i = 1; i <= m; i++) v[i] = a[key, i] + 0
    for (i = 1; i <= m; i++) for (j = i + 1; j <= m; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
    return (m % 2) ? v[(m + 1) / 2] : (v[m / 2] + v[m / 2 + 1]) / 2
  }
  END {
    for (key in n) printf "%s: %.1f %s/s, cpu %.3f ms\n", key, median(r, key, n[key]), (key ~ / cas@/ ? "acked" : "req"), median(c, key, n[key])
  }' "$results" | sort
