#!/usr/bin/env bash
# dist.sh — release archives: static teammem-agent and teammem-server
# binaries for every target, the version linked in, one archive per target
# (.tar.gz, .zip for windows) with README.md, LICENSE and the service
# definitions (deploy/), and a SHA256SUMS file over the archives.
#
#   VERSION=v1.2.3 scripts/dist.sh                 # every target, into dist/
#   DIST_TARGETS="linux/amd64" DIST_DIR=/tmp/d scripts/dist.sh
set -euo pipefail
cd "$(dirname "$0")/.."

GO=${GO:-go}
VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
DIST_DIR=${DIST_DIR:-dist}
DIST_TARGETS=${DIST_TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64}

case "$VERSION" in
*/* | *' '*) echo "dist: VERSION $VERSION must not hold a slash or a space" >&2; exit 2 ;;
esac

mkdir -p "$DIST_DIR"
DIST_DIR=$(cd "$DIST_DIR" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The agent's user service definitions, as `teammem-agent service install`
# writes them for an agent in /usr/local/bin (examples: install writes the
# user's own), printed by an agent built for this machine.
host_agent="$work/host/teammem-agent"
CGO_ENABLED=0 "$GO" build -trimpath -o "$host_agent" ./cmd/teammem-agent

archives=()
for target in $DIST_TARGETS; do
	os=${target%/*} arch=${target#*/}
	name="teammem-$VERSION-$os-$arch"
	ext=""
	[ "$os" = windows ] && ext=.exe
	mkdir -p "$work/$name"
	for cmd in teammem-agent teammem-server; do
		echo "dist: $name/$cmd$ext"
		CGO_ENABLED=0 GOOS=$os GOARCH=$arch "$GO" build -trimpath \
			-ldflags "-s -w -X main.version=$VERSION" -o "$work/$name/$cmd$ext" "./cmd/$cmd"
	done
	cp README.md LICENSE "$work/$name/"
	mkdir -p "$work/$name/deploy"
	cp deploy/teammem-server.service "$work/$name/deploy/"
	case "$os" in
	linux) HOME=/home/you XDG_CONFIG_HOME= "$host_agent" service print --os linux --agent /usr/local/bin/teammem-agent \
		--config /home/you/.config/teammem/agent.toml >"$work/$name/deploy/teammem-agent.service" ;;
	darwin) HOME=/Users/you "$host_agent" service print --os darwin --agent /usr/local/bin/teammem-agent \
		--config "/Users/you/Library/Application Support/teammem/agent.toml" >"$work/$name/deploy/dev.teammem.agent.plist" ;;
	esac
	if [ "$os" = windows ]; then
		archive="$name.zip"
		rm -f "$DIST_DIR/$archive"
		(cd "$work" && zip -q -r -X "$DIST_DIR/$archive" "$name")
	else
		archive="$name.tar.gz"
		tar -C "$work" --owner=0 --group=0 --numeric-owner -czf "$DIST_DIR/$archive" "$name"
	fi
	archives+=("$archive")
done

(cd "$DIST_DIR" && sha256sum "${archives[@]}" >SHA256SUMS)
echo "dist: $DIST_DIR/SHA256SUMS"
cat "$DIST_DIR/SHA256SUMS"
