#!/usr/bin/env bash
# pg.sh start|stop|url|with CMD... — a throwaway PostgreSQL cluster for tests.
#
# The cluster lives in $TEAMMEM_PG_DIR (default /tmp/teammem-pg-$UID), listens
# only on a Unix socket in that folder and on 127.0.0.1:$TEAMMEM_PG_PORT
# (default 55432), trusts local connections, and is run as the `postgres` user
# when invoked as root (initdb refuses to run as root).
# `with CMD` starts a cluster unless TEAMMEM_TEST_DATABASE_URL is already set,
# exports its URL, runs CMD, and stops the cluster it started.
set -euo pipefail

PGBIN=${PGBIN:-}
if [ -z "$PGBIN" ]; then
  for d in /usr/lib/postgresql/*/bin /usr/local/pgsql/bin; do
    [ -x "$d/initdb" ] && PGBIN=$d
  done
fi
if [ -z "$PGBIN" ] && command -v initdb >/dev/null 2>&1; then PGBIN=$(dirname "$(command -v initdb)"); fi
DIR=${TEAMMEM_PG_DIR:-/tmp/teammem-pg-$(id -u)}
PORT=${TEAMMEM_PG_PORT:-55432}
URL="postgres://postgres@127.0.0.1:$PORT/postgres?sslmode=disable"

as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

start() {
  [ -n "$PGBIN" ] || { echo "pg.sh: PostgreSQL server binaries not found (install postgresql)" >&2; exit 1; }
  if [ -f "$DIR/data/postmaster.pid" ] && as_pg "$PGBIN/pg_ctl" -D "$DIR/data" status >/dev/null 2>&1; then
    echo "$URL"; return
  fi
  rm -rf "$DIR"; mkdir -p "$DIR"
  [ "$(id -u)" = 0 ] && chown postgres "$DIR"
  as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --locale=C.UTF-8 >"$DIR/initdb.log" 2>&1 \
    || as_pg "$PGBIN/initdb" -D "$DIR/data" -U postgres -A trust -E UTF8 --no-locale >"$DIR/initdb.log" 2>&1 \
    || { cat "$DIR/initdb.log" >&2; exit 1; }
  as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -l "$DIR/server.log" -w -t 60 \
    -o "-p $PORT -k $DIR -c listen_addresses=127.0.0.1 -c max_connections=300 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c shared_buffers=128MB" \
    start >/dev/null || { cat "$DIR/server.log" >&2; exit 1; }
  echo "$URL"
}

stop() {
  if [ -n "$PGBIN" ] && [ -d "$DIR/data" ]; then
    as_pg "$PGBIN/pg_ctl" -D "$DIR/data" -m fast -w stop >/dev/null 2>&1 || true
  fi
  rm -rf "$DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  url) echo "$URL" ;;
  with)
    shift
    if [ -n "${TEAMMEM_TEST_DATABASE_URL:-}" ]; then exec "$@"; fi
    TEAMMEM_TEST_DATABASE_URL=$(start); export TEAMMEM_TEST_DATABASE_URL
    trap stop EXIT
    "$@"
    ;;
  *) echo "usage: pg.sh start|stop|url|with CMD..." >&2; exit 2 ;;
esac
