#!/bin/sh
# Common entrypoint: record the start in the events log (if one is mounted) and hand over to the command.
# `entrypoint.sh --event <what>` only records an event: the order a host applied a release in is read from these lines.
event() {
  [ -n "${PHAROS_EVENTS:-}" ] || return 0
  read -r up _ < /proc/uptime
  echo "$up $(date -u +%H:%M:%S) ${PHAROS_SERVICE:-unknown} $1 ${PHAROS_VERSION:-dev} $(hostname)" >> "$PHAROS_EVENTS"
}
if [ "${1:-}" = "--event" ]; then
  event "$2"
  exit 0
fi
event start
echo "starting: $*"
exec "$@"
