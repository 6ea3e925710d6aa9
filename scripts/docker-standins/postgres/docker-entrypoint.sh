#!/bin/sh
# What the official image's entrypoint does that docker-compose.yml relies on: a first start with an
# empty $PGDATA creates the cluster with POSTGRES_USER (superuser), POSTGRES_PASSWORD and POSTGRES_DB,
# password authentication from other hosts; then postgres runs as the postgres user. PGPORT is honoured.
set -eu
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" /var/run/postgresql
  chown -R postgres:postgres "$PGDATA" /var/run/postgresql
  chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
user="${POSTGRES_USER:-postgres}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pw="$(mktemp)"; printf '%s\n' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pw"
  initdb --username="$user" --pwfile="$pw" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pw"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db="${POSTGRES_DB:-$user}"
  if [ "$db" != postgres ]; then
    pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
    psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -c "CREATE DATABASE \"$db\"" >/dev/null
    pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  fi
  echo "stand-in postgres: initialised $PGDATA (user $user, database $db)"
fi
if [ "${1:-}" = postgres ]; then shift; exec postgres -c listen_addresses='*' "$@"; fi
exec "$@"
