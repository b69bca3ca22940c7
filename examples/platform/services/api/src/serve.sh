#!/bin/sh
# Serves the contract and a health page with busybox httpd.
set -eu
root="${TMPDIR:-/tmp}/pharos-api-www"
mkdir -p "$root"
here="$(dirname "$0")"
cp "$here/../../../contracts/api.json" "$root/contract.json" 2>/dev/null || cp /app/contracts/api.json "$root/contract.json"
echo "ok version=${PHAROS_VERSION:-dev}" > "$root/health"
# As PID 1 httpd would ignore SIGTERM: run it as a child and stop it on TERM, so a stop takes no grace period.
busybox httpd -f -p "${PORT:-8080}" -h "$root" &
pid=$!
trap 'kill "$pid"; exit 0' TERM INT
wait "$pid"
