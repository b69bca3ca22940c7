#!/bin/sh
# Applies the SQL files in /app/migrations in name order with psql. Each file runs in one transaction together with its
# row in schema_migrations, so a rerun applies nothing and a file that fails leaves nothing of itself behind.
# Connection: the libpq variables PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSWORD (or PGPASSFILE).
set -eu
sh /app/entrypoint.sh --event migrate
dir="${PHAROS_MIGRATIONS:-/app/migrations}"
wait_s="${PHAROS_DATABASE_WAIT:-60}"
psql() { command psql --no-psqlrc --quiet --set=ON_ERROR_STOP=1 "$@"; }
# The server lexes each migration in this encoding (and with standard_conforming_strings on, set below).
export PGCLIENTENCODING=UTF8

waited=0
until pg_isready --quiet --timeout=2; do
  waited=$((waited + 1))
  if [ "$waited" -ge "$wait_s" ]; then
    echo "migrate: cannot reach PostgreSQL at ${PGHOST:-localhost}:${PGPORT:-5432} within ${wait_s} s" >&2
    exit 1
  fi
  sleep 1
done

psql -c 'CREATE TABLE IF NOT EXISTS schema_migrations (version text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())'
applied=0
skipped=0
for file in "$dir"/*.sql; do
  [ -e "$file" ] || continue
  version="$(basename "$file" .sql)"
  case "$version" in
    [0-9][0-9][0-9][0-9]_*) ;;
    *) echo "migrate: refusing $file: a migration is named NNNN_<what>.sql" >&2; exit 2 ;;
  esac
  # A transaction statement of its own would commit half a file: refused before anything of it runs. The file is read
  # as PostgreSQL reads the one query string it is sent as (below): strings, quoted names, dollar quotes and comments.
  control="$(awk -f /app/transaction-control.awk "$file")"
  if [ -n "$control" ]; then
    echo "migrate: refusing $file: it contains ${control% *} (line ${control##* }); each file already runs in its own transaction, which it must not end" >&2
    exit 2
  fi
  # Sent as one -c argument, so it must fit in one (Linux's MAX_ARG_STRLEN, 128 KiB).
  if [ "$(wc -c < "$file")" -gt 131000 ]; then
    echo "migrate: refusing $file: over 128 KiB; split it into several migrations" >&2
    exit 2
  fi
  # The version reaches SQL only as a psql variable (:'version' quotes it), never pasted into the statement.
  known="$(echo "SELECT count(*) FROM schema_migrations WHERE version = :'version'" | psql --tuples-only --no-align -v version="$version")"
  if [ "$known" != "0" ]; then
    skipped=$((skipped + 1))
    continue
  fi
  # A second run at the same time blocks on the lock, then fails on the primary key: never applied twice. The file goes
  # to the server as one query string (-c, no psql splitting, variables or backslash commands), lexed before any of it
  # runs with the settings the check above assumed.
  errors="$(mktemp)"
  if ! echo "INSERT INTO schema_migrations (version) VALUES (:'version')" | psql --single-transaction \
      -v version="$version" -c 'SET standard_conforming_strings = on' \
      -c 'LOCK TABLE schema_migrations IN SHARE ROW EXCLUSIVE MODE' -c "$(cat "$file")" -f - 2> "$errors"; then
    cat "$errors" >&2
    # psql says "ERROR:  <message>" and "LINE <n>: …" (the line in the file): named here as "<file>:<line>: ERROR: …".
    line="$(sed -n 's/^LINE \([0-9]*\):.*/\1/p' "$errors" | head -n 1)"
    echo "migrate: $version failed and was rolled back (nothing of it applied; $applied applied before it): $file:${line:-?}: $(grep -m 1 'ERROR:' "$errors" | sed 's/^psql:[^ ]* //')" >&2
    exit 1
  fi
  rm -f "$errors"
  echo "migrate: applied $version"
  applied=$((applied + 1))
done
echo "migrate: $applied applied, $skipped already applied (schema $(cat /app/contracts/schema-version 2>/dev/null || echo 0))"
