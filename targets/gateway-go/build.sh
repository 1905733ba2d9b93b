#!/bin/sh
# Builds the Go gateway (Caddy v2 with its standard modules) from the
# nested module in caddy/, whose go.mod and go.sum pin every dependency.
# Usage: targets/gateway-go/build.sh OUT   (e.g. targets/gateway-go/build.sh bin/gateway-go)
# The binary is written to a temporary file beside OUT and moved into
# place, so OUT is either the old binary or the complete new one.
set -eu

if [ "$#" -ne 1 ]; then
	echo "usage: $0 OUT" >&2
	exit 2
fi
out=$1
here=$(cd "$(dirname "$0")" && pwd)

if ! command -v go >/dev/null 2>&1; then
	echo "$0: go not found: install Go 1.26 (the toolchain yardstick itself needs)" >&2
	exit 1
fi

mkdir -p "$(dirname "$out")"
outdir=$(cd "$(dirname "$out")" && pwd)
tmp=$(mktemp -d "$outdir/.gateway-go.XXXXXX")
trap 'rm -rf "$tmp"' EXIT INT TERM

# -mod=readonly: go.sum must already pin everything (no silent upgrades);
# -trimpath -ldflags '-s -w': what xcaddy, Caddy's own build tool, does by
# default (no local paths, no symbol table or DWARF).
(cd "$here/caddy" && go build -mod=readonly -trimpath -ldflags '-s -w' -o "$tmp/gateway-go" .)
mv -f "$tmp/gateway-go" "$out"
