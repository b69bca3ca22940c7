#!/bin/sh
# Processes jobs until stopped; records each tick, and its stop in the events log.
set -eu
trap 'echo "worker stopping"; sh /app/entrypoint.sh --event stop; exit 0' TERM INT
while :; do
  echo "worker tick $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  sleep 5 & wait $!
done
