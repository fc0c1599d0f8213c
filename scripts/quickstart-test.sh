#!/usr/bin/env bash
# quickstart-test.sh — runs the README's quick start (`make build`, then
# `make run` on a free port and a temporary data directory), and checks that
# the binaries run, the server answers with the admin token it wrote, and the
# agent signs in with a code entered in the web UI session: the
# quick start stays true.
set -euo pipefail
cd "$(dirname "$0")/.."
# The quick start's first block of commands, as the README writes it.
block=$(awk '/^## Quick start/ { q = 1 } q && /^```sh/ { b = 1; next } b && /^```/ { exit } b' README.md)
for step in 'make build' 'make run'; do
  grep -q "^$step " <<<"$block" || { echo "quickstart: the README's quick start does not say '$step'"; exit 1; }
done
make build >/dev/null
for bin in teammem-server teammem-agent; do
  [ -x "bin/$bin" ] || { echo "quickstart: make build did not write bin/$bin"; exit 1; }
  bin/$bin version | grep -q . || { echo "quickstart: bin/$bin version printed nothing"; exit 1; }
done
data=$(mktemp -d)
log=$data/server.log
export TEAMMEM_DATA_DIR=$data/data TEAMMEM_ADDR=127.0.0.1:0
# make → go run → teammem-server: the server is a grandchild, so the whole
# process group is ended, not just make (setsid makes make its leader).
setsid make run >"$log" 2>&1 &
pid=$!
# running tells whether any process of the group is alive and not a zombie.
running() { ps -e -o pgid=,stat= | awk -v g="$pid" '$1 == g && $2 !~ /^Z/ { n++ } END { exit !n }'; }
cleanup() {
  kill -TERM -- "-$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do running || break; sleep 0.1; done
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  rm -rf "$data"
}
trap cleanup EXIT
addr=
for _ in $(seq 1 600); do
  addr=$(sed -n -E 's/.*listening on ([0-9.:]+).*/\1/p' "$log" | head -n1)
  [ -n "$addr" ] && break
  kill -0 "$pid" 2>/dev/null || { cat "$log"; echo "quickstart: make run exited"; exit 1; }
  sleep 0.2
done
[ -n "$addr" ] || { cat "$log"; echo "quickstart: no 'listening on' line"; exit 1; }
grep -qF "web UI at http://$addr/ui/" "$log" || { cat "$log"; echo "quickstart: the start log does not name the web UI's address"; exit 1; }
grep -qF "$TEAMMEM_DATA_DIR/admin.token" "$log" || { cat "$log"; echo "quickstart: the start log does not say where admin.token is"; exit 1; }
[ "$(curl -sS -o /dev/null -w '%{http_code} %{redirect_url}' "http://$addr/")" = "302 http://$addr/ui/" ] || { echo "quickstart: the server's address does not lead to /ui/"; exit 1; }
curl -fsS "http://$addr/healthz" >/dev/null
curl -fsS "http://$addr/readyz" >/dev/null
token=$(cat "$TEAMMEM_DATA_DIR/admin.token")
[ "$(stat -c %a "$TEAMMEM_DATA_DIR/admin.token")" = 600 ] || { echo "quickstart: admin.token is not mode 0600"; exit 1; }
curl -fsS -X PUT -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data '{"entries":{"MEMORY.md":"# Team memory\n"}}' "http://$addr/api/claude_code/team_memory?repo=acme/quickstart" >/dev/null
curl -fsS -H "Authorization: Bearer $token" "http://$addr/api/claude_code/team_memory?repo=acme/quickstart" | grep -q '"MEMORY.md"'
# The web UI: paste the token into the sign-in form, then see the repository.
jar=$data/cookies
curl -fsS -o /dev/null -c "$jar" -H 'Sec-Fetch-Site: same-origin' --data-urlencode "token=$token" "http://$addr/ui/login"
curl -fsS -b "$jar" "http://$addr/ui/" | grep -q 'acme/quickstart' || { echo "quickstart: the web UI does not list the repository"; exit 1; }
# The agent signs in with nothing but the address: it shows a code, the
# signed-in browser session enters it and allows, and the agent pulls as
# that person (no token copied).
agentenv=(env HOME="$data/home" XDG_CONFIG_HOME="$data/home/.config" DISPLAY= WAYLAND_DISPLAY=)
"${agentenv[@]}" bin/teammem-agent login --server "http://$addr" --device --state-dir "$data/state" \
  </dev/null >"$data/login.out" 2>"$data/login.err" &
login=$!
code=
for _ in $(seq 1 100); do
  code=$(sed -n -E 's/^ +([B-Z]{4}-[B-Z]{4})$/\1/p' "$data/login.err" | head -n1)
  [ -n "$code" ] && break
  sleep 0.1
done
[ -n "$code" ] || { cat "$data/login.err"; kill "$login"; echo "quickstart: login --device showed no code"; exit 1; }
csrf=$(curl -fsS -b "$jar" "http://$addr/ui/device?user_code=$code" | sed -n -E 's/.*name="csrf" value="([^"]+)".*/\1/p' | head -n1)
curl -fsS -o /dev/null -b "$jar" -H 'Sec-Fetch-Site: same-origin' --data-urlencode "csrf=$csrf" \
  --data-urlencode "user_code=$code" --data decision=allow "http://$addr/ui/device"
wait "$login" || { cat "$data/login.err"; echo "quickstart: login --device failed"; exit 1; }
grep -qF "signed in to http://$addr with a code entered in the browser as admin;" "$data/login.out" || { cat "$data/login.out"; echo "quickstart: login --device said otherwise"; exit 1; }
"${agentenv[@]}" bin/teammem-agent pull --server "http://$addr" --repo acme/quickstart --dir "$data/checkout" --state-dir "$data/state" >/dev/null
[ -f "$data/checkout/MEMORY.md" ] || { echo "quickstart: the signed-in agent did not pull MEMORY.md"; exit 1; }
if grep -qF "$token" "$log"; then echo "quickstart: the admin token was logged"; exit 1; fi
echo "quickstart: ok (server on $addr)"
