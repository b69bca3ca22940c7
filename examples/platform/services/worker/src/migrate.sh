#!/bin/sh
# Applies schema migrations; idempotent. Records the run in the events log.
set -eu
sh /app/entrypoint.sh --event migrate
echo "migrating schema $(cat /app/contracts/schema-version 2>/dev/null || echo 0)"
