#!/usr/bin/env bash
# bench-server.sh — the issue's HTTP benchmark: builds the server and the load
# generator, starts the server on the embedded store (then on Postgres),
# prints idle RSS, and runs `teammem-load -all` (median of 3 runs per case)
# with the server's RSS. Generator and server share this machine.
#   BENCH_D=5s  duration per run;  BENCH_STORES="sqlite postgres"
#   BENCH_BIG_PULL=0 skips the 8 × 50 MB pull memory benchmark (BENCH_SETTLE=60s);
#   BENCH_ALL=0 skips the load cases before it (the memory benchmark alone,
#   right after the server starts)
#   BENCH_FLOOR=1 first measures the floor: the read and put cases against a
#   handler that does nothing but answer (teammem-load -serve-floor)
#   BENCH_PIN=1 (the default on a machine of 2 or more CPUs with taskset) runs
#   the server on the last CPU and the generator on the others, as a client
#   on another machine: neither takes the other's CPU, and the server's Go
#   runtime sizes itself to its one CPU. Postgres, part of what is measured,
#   runs wherever the kernel finds room. BENCH_PIN=0 shares every CPU among
#   all three, as before.
set -euo pipefail
cd "$(dirname "$0")/.."
D=${BENCH_D:-5s}
STORES=${BENCH_STORES:-sqlite postgres}
. scripts/bench-lib.sh
bench_build

server_on=() load_on=()
if [ "${BENCH_PIN:-1}" = 1 ] && bench_pin; then
  echo "== pinned: server on CPU ${server_on[2]}, generator on CPUs ${load_on[2]}, Postgres on any (BENCH_PIN=0 to share them all)"
else
  echo "== not pinned: server, generator and Postgres share $(nproc) CPUs"
fi

bench_one() { # store-name extra-server-args...
  local name=$1; shift
  bench_start "${server_on[@]}" -- --log-level warn "$@" || return 1
  sleep 1
  echo "== $name store: idle RSS $(awk '/VmRSS/ {r=$2} /RssFile/ {f=$2} END {printf "%.1f MB (mapped files %.1f MB)", r/1024, f/1024}' /proc/$pid/status)"
  if [ "${BENCH_ALL:-1}" = 1 ]; then
    "${load_on[@]}" "$bin/teammem-load" -server "http://$addr" -token-file "$data/admin.token" -server-pid $pid -all -d "$D" -runs 3 || true
  fi
  if [ "${BENCH_BIG_PULL:-1}" = 1 ]; then # the memory figure: 8 concurrent full pulls of 8 distinct 50 MB repositories
    "${load_on[@]}" "$bin/teammem-load" -server "http://$addr" -token-file "$data/admin.token" -server-pid $pid -big-pull -big-settle "${BENCH_SETTLE:-60s}" || true
  fi
  bench_stop
}

if [ "${BENCH_FLOOR:-0}" = 1 ]; then
  "${server_on[@]}" "$bin/teammem-load" -serve-floor 127.0.0.1:0 >"$bin/floor.out" &
  fpid=$!
  faddr=""
  for _ in $(seq 1 100); do
    faddr=$(awk '/listening on/ {print $5}' "$bin/floor.out")
    [ -n "$faddr" ] && break
    sleep 0.1
  done
  echo "== floor (a handler that only answers)"
  for c in "get-full 20" "get-304 20" "hashes 1000" "put 20"; do
    set -- $c
    "${load_on[@]}" "$bin/teammem-load" -server "http://$faddr" -token floor -server-pid $fpid -scenario "$1" -entries "$2" -d "$D" || true
  done
  kill -TERM $fpid; wait $fpid || true
fi

bench_each_store "$STORES" bench_one
