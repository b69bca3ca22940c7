#!/bin/sh
# Applies schema migrations; idempotent.
set -eu
echo "migrating schema $(cat /app/contracts/schema-version 2>/dev/null || echo 0)"
