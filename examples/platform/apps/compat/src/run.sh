#!/bin/sh
# The compat app: prints its build and waits.
set -eu
cat /app/build.txt 2>/dev/null || echo "app=${APP:-local}"
trap 'exit 0' TERM INT
while :; do sleep 5 & wait $!; done
