#!/usr/bin/env bash
# bench-search.sh — the search benchmark of issue 23: builds the server and
# the load generator, starts the server on each store, loads the corpus
# (SEARCH_REPOS repositories × SEARCH_ENTRIES notes of 2 KB, deterministic:
# internal/loadgen/corpus.go), prints the load time and the data size, then
# runs `teammem-load -scenario search` in one repository and across all.
#   SEARCH_REPOS=100 SEARCH_ENTRIES=1000 BENCH_D=10s BENCH_C=2 BENCH_STORES="sqlite postgres"
set -euo pipefail
cd "$(dirname "$0")/.."
repos=${SEARCH_REPOS:-100} entries=${SEARCH_ENTRIES:-1000} D=${BENCH_D:-10s} C=${BENCH_C:-2}
bin=$(mktemp -d)
trap 'rm -rf "$bin"' EXIT
CGO_ENABLED=0 go build -trimpath -o "$bin/" ./cmd/teammem-server ./cmd/teammem-load

bench_one() { # store-name extra-server-args...
  local name=$1; shift
  local data; data=$(mktemp -d)
  "$bin/teammem-server" serve --addr 127.0.0.1:0 --data-dir "$data" --rate-limit 0 --log-level info --log-format text "$@" 2>"$data/log" &
  local pid=$! addr=""
  for _ in $(seq 1 300); do
    addr=$(sed -n -E 's/.*listening on ([0-9.:]+).*/\1/p' "$data/log" | head -n1)
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$data/log"; kill $pid; echo "server did not start"; return 1; }
  local load=("$bin/teammem-load" -server "http://$addr" -token-file "$data/admin.token" -server-pid $pid
    -scenario search -search-repos "$repos" -entries "$entries")
  local start; start=$(date +%s)
  "${load[@]}" -c 4 -n 1 >/dev/null
  echo "== $name: corpus of $repos × $entries loaded in $(( $(date +%s) - start )) s; data dir $(du -sh "$data" | cut -f1)"
  echo "== $name: one repository";  "${load[@]}" -c "$C" -d "$D" || true
  echo "== $name: all repositories"; "${load[@]}" -c "$C" -d "$D" -search-all || true
  kill -TERM $pid; wait $pid || true
  rm -rf "$data"
}

for s in ${BENCH_STORES:-sqlite postgres}; do
  case $s in
    sqlite) bench_one sqlite ;;
    postgres)
      url=${TEAMMEM_BENCH_DATABASE_URL:-}
      if [ -z "$url" ]; then
        export TEAMMEM_PG_DIR=/tmp/teammem-bench-pg TEAMMEM_PG_PORT=55439
        url=$(scripts/pg.sh start)
        trap 'scripts/pg.sh stop; rm -rf "$bin"' EXIT
      fi
      bench_one postgres --database-url "$url" --migrate ;;
  esac
done
