#!/bin/sh
# Not part of the image: the runtime_path rule excludes tests.
sh "$(dirname "$0")/../src/serve.sh" & pid=$!; sleep 1; kill "$pid"
