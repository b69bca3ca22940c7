#!/bin/sh
# Applies the SQL files in /app/migrations in name order with psql. Each file runs in one transaction together with its
# row in schema_migrations, so a rerun applies nothing and a file that fails leaves nothing of itself behind.
# Connection: the libpq variables PGHOST, PGPORT, PGUSER, PGDATABASE and PGPASSWORD (or PGPASSFILE).
set -eu
sh /app/entrypoint.sh --event migrate
dir="${PHAROS_MIGRATIONS:-/app/migrations}"
wait_s="${PHAROS_DATABASE_WAIT:-60}"
psql() { command psql --no-psqlrc --quiet --set=ON_ERROR_STOP=1 "$@"; }

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
  # A transaction statement of its own would commit half a file: refused before anything of it runs.
  if grep -qiE '^[[:space:]]*(begin|commit|rollback|start[[:space:]]+transaction|abort)[[:space:]]*(work|transaction)?[[:space:]]*;' "$file"; then
    echo "migrate: refusing $file: it controls its own transaction (BEGIN/COMMIT/ROLLBACK); each file already runs in one" >&2
    exit 2
  fi
  # The version reaches SQL only as a psql variable (:'version' quotes it), never pasted into the statement.
  known="$(echo "SELECT count(*) FROM schema_migrations WHERE version = :'version'" | psql --tuples-only --no-align -v version="$version")"
  if [ "$known" != "0" ]; then
    skipped=$((skipped + 1))
    continue
  fi
  # A second run at the same time blocks on the lock, then fails on the primary key: never applied twice.
  errors="$(mktemp)"
  if ! echo "INSERT INTO schema_migrations (version) VALUES (:'version')" | psql --single-transaction -v version="$version" \
      -c 'LOCK TABLE schema_migrations IN SHARE ROW EXCLUSIVE MODE' -f "$file" -f - 2> "$errors"; then
    cat "$errors" >&2
    # psql's first error line names the file and line: "psql:/app/migrations/<file>:<line>: ERROR:  <message>".
    echo "migrate: $version failed and was rolled back (nothing of it applied; $applied applied before it): $(grep -m 1 'ERROR:' "$errors" | sed 's/^psql://')" >&2
    exit 1
  fi
  rm -f "$errors"
  echo "migrate: applied $version"
  applied=$((applied + 1))
done
echo "migrate: $applied applied, $skipped already applied (schema $(cat /app/contracts/schema-version 2>/dev/null || echo 0))"
