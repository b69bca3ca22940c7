#!/bin/sh
# Test double for systemctl (no systemd runs here): appends its arguments to $SYSTEMCTL_RECORD, fails when $SYSTEMCTL_FAIL is set.
printf '%s\n' "$*" >> "${SYSTEMCTL_RECORD:?}"
if [ -n "${SYSTEMCTL_FAIL:-}" ]; then
  echo "Failed to reload daemon: injected failure" >&2
  exit 1
fi
