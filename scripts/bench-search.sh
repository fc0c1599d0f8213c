#!/usr/bin/env bash
# bench-search.sh — the search benchmark of issue 23: builds the server and
# the load generator, starts the server on each store, loads the corpus
# (SEARCH_REPOS repositories × SEARCH_ENTRIES notes of 2 KB, deterministic:
# testkit/loadgen/corpus.go), prints the load time and the data size, then
# runs `teammem-load -scenario search` in one repository and across all.
#   SEARCH_REPOS=100 SEARCH_ENTRIES=1000 BENCH_D=10s BENCH_C=2 BENCH_STORES="sqlite postgres"
set -euo pipefail
cd "$(dirname "$0")/.."
repos=${SEARCH_REPOS:-100} entries=${SEARCH_ENTRIES:-1000} D=${BENCH_D:-10s} C=${BENCH_C:-2}
. scripts/bench-lib.sh
bench_build

bench_one() { # store-name extra-server-args...
  local name=$1; shift
  bench_start -- --log-level info "$@" || return 1
  local load=("$bin/teammem-load" -server "http://$addr" -token-file "$data/admin.token" -server-pid $pid
    -scenario search -search-repos "$repos" -entries "$entries")
  local start; start=$(date +%s)
  "${load[@]}" -c 4 -n 1 >/dev/null
  echo "== $name: corpus of $repos × $entries loaded in $(( $(date +%s) - start )) s; data dir $(du -sh "$data" | cut -f1)"
  if [ "$name" = postgres ] && command -v psql >/dev/null; then
    echo "== postgres: search index $(psql "$bench_url" -Atc "SELECT 'vectors ' || pg_size_pretty(sum(coalesce(pg_column_size(search), 0)
      + coalesce(pg_column_size(search_title), 0))) || ', GIN ' || pg_size_pretty(pg_relation_size('entries_search'))
      || ', links ' || pg_size_pretty(pg_total_relation_size('search_links')) FROM entries")"
  fi
  echo "== $name: one repository";  "${load[@]}" -c "$C" -d "$D" || true
  echo "== $name: all repositories"; "${load[@]}" -c "$C" -d "$D" -search-all || true
  bench_stop
}

bench_each_store "${BENCH_STORES:-sqlite postgres}" bench_one
