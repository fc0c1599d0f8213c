# bench-lib.sh — what the benchmark scripts share (sourced, not run):
# building the server and the load generator, starting and stopping a
# server on a fresh data directory, and the Postgres cluster behind the
# Postgres figures.
#   TEAMMEM_BENCH_DATABASE_URL  use this database instead of a throwaway cluster
#   TEAMMEM_PG_DIR, TEAMMEM_PG_PORT  the throwaway cluster's folder and port
#     (default /tmp/teammem-bench-pg and 55439; see scripts/pg.sh)

# bench_build builds teammem-server and teammem-load into $bin, a
# temporary folder removed on exit (with the cluster bench_pg_url started).
bench_build() {
  bin=$(mktemp -d)
  trap bench_cleanup EXIT
  CGO_ENABLED=0 go build -trimpath -o "$bin/" ./cmd/teammem-server ./cmd/teammem-load
}

# bench_build_revs REV... runs bench_build (the work tree's server and load
# generator, into $bin) and builds the server of each REV (a commit, or
# "." for the work tree) into $bin/b1, $bin/b2, ...
bench_build_revs() {
  bench_build
  local i rev out
  for i in $(seq 1 $#); do
    rev=${!i} out=$bin/b$i
    mkdir -p "$out"
    if [ "$rev" = . ]; then
      cp "$bin/teammem-server" "$out/"
    else
      mkdir -p "$bin/src$i"
      git archive "$rev" | tar -x -C "$bin/src$i"
      (cd "$bin/src$i" && CGO_ENABLED=0 go build -trimpath -o "$out/" ./cmd/teammem-server)
    fi
  done
}

bench_pg_started=0
bench_cleanup() {
  # A script that failed between bench_start and bench_stop leaves no server.
  if [ -n "${pid:-}" ]; then bench_stop; fi
  if [ "$bench_pg_started" = 1 ]; then scripts/pg.sh stop; fi
  rm -rf "$bin"
}

# bench_pg_url prints the URL of the benchmark's Postgres database,
# starting a throwaway cluster unless TEAMMEM_BENCH_DATABASE_URL is set.
# Call it outside a command substitution (it records the cluster to stop):
# bench_pg_url; url=$bench_url
bench_pg_url() {
  bench_url=${TEAMMEM_BENCH_DATABASE_URL:-}
  if [ -z "$bench_url" ]; then
    export TEAMMEM_PG_DIR=${TEAMMEM_PG_DIR:-/tmp/teammem-bench-pg} TEAMMEM_PG_PORT=${TEAMMEM_PG_PORT:-55439}
    bench_url=$(scripts/pg.sh start)
    bench_pg_started=1
  fi
}

# bench_start [launcher...] -- server-args... starts teammem-server on a new
# data directory ($data), prefixed by the launcher (e.g. taskset), and sets
# $pid and $addr; it fails, printing the server's log, when no address shows.
bench_start() {
  local launch=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do launch+=("$1"); shift; done
  shift
  data=$(mktemp -d)
  "${launch[@]}" "$bin/teammem-server" serve --addr 127.0.0.1:0 --data-dir "$data" --rate-limit 0 --log-format text "$@" 2>"$data/log" &
  pid=$! addr=""
  for _ in $(seq 1 300); do
    addr=$(sed -n -E 's/.*listening on ([0-9.:]+).*/\1/p' "$data/log" | head -n1)
    [ -n "$addr" ] && break
    # --log-level warn hides the info line: look in the socket table.
    addr=$(ss -ltnp 2>/dev/null | awk -v p="pid=$pid," '$0 ~ p {print $4; exit}')
    [ -n "$addr" ] && break
    sleep 0.1
  done
  [ -n "$addr" ] || { cat "$data/log"; kill "$pid"; echo "server did not start"; return 1; }
}

# bench_pin sets server_on and load_on, the launchers that run the server on
# the last CPU and the load generator on the others, as a client on another
# machine would be; both stay empty (fails) on one CPU or without taskset.
bench_pin() {
  server_on=() load_on=()
  local ncpu; ncpu=$(nproc)
  [ "$ncpu" -ge 2 ] && command -v taskset >/dev/null || return 1
  server_on=(taskset -c $((ncpu - 1))) load_on=(taskset -c "0-$((ncpu - 2))")
}

# bench_each_store "STORES" FN calls FN NAME [SERVER-ARGS...] for each store
# named in STORES: "sqlite" (the embedded store) and "postgres" (the
# cluster of bench_pg_url, migrated at start).
bench_each_store() {
  local stores=$1 fn=$2 s
  for s in $stores; do
    case $s in
      sqlite) "$fn" sqlite ;;
      postgres) bench_pg_url; "$fn" postgres --database-url "$bench_url" --migrate ;;
      *) echo "unknown store $s (want sqlite or postgres)"; return 1 ;;
    esac
  done
}

# bench_stop stops the server bench_start started and removes its data.
bench_stop() {
  kill -TERM "$pid"; wait "$pid" || true
  rm -rf "$data"
  pid=""
}
