#!/usr/bin/env bash
# pgo-profile.sh — refreshes cmd/teammem-server/default.pgo, the CPU profile
# `go build` uses to optimise the server (profile-guided optimisation; Go
# picks up default.pgo in a main package's folder by itself). It builds the
# server and the load generator, starts the server with --debug-addr on each
# store, seeds PGO_REPOS × 1,000 notes of the search corpus, and profiles
# PGO_D (8s) of each load scenario below while teammem-load drives it, the
# generator on other CPUs than the server where taskset allows. Every
# scenario gets the same time, so the profile weighs what a server does
# (writes, pulls, searches, MCP calls) about evenly on both stores. Run it
# when a hot path changes, and commit the profile with the change.
#   PGO_STORES="sqlite postgres"  PGO_D=8  PGO_REPOS=10  PGO_OUT=cmd/teammem-server/default.pgo
set -euo pipefail
cd "$(dirname "$0")/.."
D=${PGO_D:-8} repos=${PGO_REPOS:-10} out=${PGO_OUT:-cmd/teammem-server/default.pgo}
scenarios="put cas get-full get-304 hashes search mcp-read mcp-search"
. scripts/bench-lib.sh
bench_build
profiles=$(mktemp -d)
trap 'bench_cleanup; rm -rf "$profiles"' EXIT

bench_pin || true # unpinned on one CPU

profile_store() { # store-name extra-server-args...
  local name=$1; shift
  bench_start "${server_on[@]}" -- --debug-addr 127.0.0.1:0 --log-level info --access-log=false "$@" || return 1
  local debug
  debug=$(sed -n -E 's/.*debug profiles on ([0-9.:]+).*/\1/p' "$data/log" | head -n1)
  [ -n "$debug" ] || { cat "$data/log"; echo "no debug address"; return 1; }
  local load=("${load_on[@]}" "$bin/teammem-load" -server "http://$addr" -token-file "$data/admin.token")
  local corpus=(-search-repos "$repos" -entries 1000)
  "${load[@]}" "${corpus[@]}" -scenario search -c 4 -n 1 >/dev/null # seeds the corpus
  for s in $scenarios; do
    local args=(-scenario "$s" -c 16) # the REST scenarios on their own repositories' default sizes
    case $s in search | mcp-*) args+=("${corpus[@]}") ;; esac
    "${load[@]}" "${args[@]}" -d 2s >/dev/null # seeds the scenario's repository, warms up
    curl -fsS -o "$profiles/$name-$s.pprof" "http://$debug/debug/pprof/profile?seconds=$D" &
    local curl_pid=$!
    "${load[@]}" "${args[@]}" -d "$((D + 1))s" | grep -v '^#' | sed "s/^/== $name: /"
    wait "$curl_pid"
  done
  bench_stop
}

bench_each_store "${PGO_STORES:-sqlite postgres}" profile_store
go tool pprof -proto "$profiles"/*.pprof >"$out"
echo "== $out: $(du -h "$out" | cut -f1), merged from $(ls "$profiles" | wc -l) profiles"
