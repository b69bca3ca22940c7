#!/bin/sh
# Common entrypoint: log the image and hand over to the command.
echo "starting: $*"
exec "$@"
