#!/bin/sh
# Stands in for PostgreSQL: ready once started, records its stop.
set -eu
trap 'sh /app/entrypoint.sh --event stop; exit 0' TERM INT
touch /tmp/ready
while :; do sleep 5 & wait $!; done
