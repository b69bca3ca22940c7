#!/bin/sh
# Failure injection around the real Compose: every command runs docker-compose, except `stop`, which fails as a daemon error would.
for arg in "$@"; do
  if [ "$arg" = "stop" ]; then
    echo "Error response from daemon: cannot stop container: injected failure for the worker-stop test" >&2
    exit 1
  fi
done
exec docker-compose "$@"
