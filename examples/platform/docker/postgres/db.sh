#!/bin/sh
# PostgreSQL 15 as UID 70. On first start it initialises $PGDATA with the password from POSTGRES_PASSWORD_FILE or
# POSTGRES_PASSWORD; then it supervises the server: SIGTERM becomes a fast shutdown, and the stop goes to the events log.
set -eu
as_postgres() { /usr/bin/setpriv --reuid=70 --regid=70 --clear-groups "$@"; }

mkdir -p "$PGDATA" /var/run/postgresql
chown 70:70 "$PGDATA" /var/run/postgresql
chmod 0700 "$PGDATA"

if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password="${POSTGRES_PASSWORD:-}"
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then password="$(cat "$POSTGRES_PASSWORD_FILE")"; fi
  if [ -z "$password" ]; then
    echo "db.sh: cannot initialise $PGDATA: POSTGRES_PASSWORD (or POSTGRES_PASSWORD_FILE) is empty" >&2
    exit 2
  fi
  pwfile="$(mktemp)"
  # Only the postgres user reads the password file, and only while initdb runs.
  chmod 0600 "$pwfile"
  printf '%s\n' "$password" > "$pwfile"
  chown 70:70 "$pwfile"
  as_postgres initdb --pgdata="$PGDATA" --username=postgres --pwfile="$pwfile" --encoding=UTF8 --locale=C \
    --auth-local=peer --auth-host=scram-sha-256 > /tmp/initdb.log 2>&1 || { cat /tmp/initdb.log >&2; rm -f "$pwfile"; exit 1; }
  rm -f "$pwfile"
  # Password logins from the networks the container is attached to (the Compose network), nothing else.
  printf '%s\n' 'host all all samenet scram-sha-256' >> "$PGDATA/pg_hba.conf"
  printf '%s\n' "listen_addresses = '*'" "password_encryption = 'scram-sha-256'" 'jit = off' >> "$PGDATA/postgresql.conf"
  echo "db.sh: initialised $PGDATA"
fi

# Not through the function: a backgrounded function is a subshell that ignores SIGINT, so the signal would miss the server.
/usr/bin/setpriv --reuid=70 --regid=70 --clear-groups postgres -D "$PGDATA" &
pid=$!
# SIGINT is PostgreSQL's fast shutdown: open transactions roll back and the server stops well within stop_grace_period.
trap 'kill -INT "$pid" 2>/dev/null || true' TERM INT
status=0
while kill -0 "$pid" 2>/dev/null; do
  if wait "$pid"; then status=0; else status=$?; fi
done
sh /app/entrypoint.sh --event stop
exit "$status"
