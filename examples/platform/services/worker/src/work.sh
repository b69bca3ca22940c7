#!/bin/sh
# Processes jobs until stopped; records each tick.
set -eu
trap 'echo "worker stopping"; exit 0' TERM INT
while :; do
  echo "worker tick $(date -u +%Y-%m-%dT%H:%M:%SZ)"
  sleep 5 & wait $!
done
