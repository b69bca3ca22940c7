#!/bin/sh
# Test double for systemd-run (see systemd-run-recorder.ts): runs with the project's Node, whatever `node` is on PATH.
here=$(dirname "$0")
exec "$here/../../../node_modules/.bin/node" "$here/systemd-run-recorder.ts" "$@"
