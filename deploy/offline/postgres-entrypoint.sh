#!/bin/sh
# Starts PostgreSQL the way the official image does, for the variables it reads:
# on an empty PGDATA, initdb with POSTGRES_USER (default postgres) and the
# password from POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE, scram-sha-256 for
# every network client, then POSTGRES_DB (default: the user's name) created.
set -eu
: "${PGDATA:=/var/lib/postgresql/data}"
user="${POSTGRES_USER:-postgres}"
database="${POSTGRES_DB:-$user}"
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  password="${POSTGRES_PASSWORD:-}"
  if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
    password="$(cat "$POSTGRES_PASSWORD_FILE")"
  fi
  if [ -z "$password" ]; then
    echo "postgres-entrypoint: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2
    exit 1
  fi
  umask 077
  pwfile="$(mktemp)"
  printf '%s\n' "$password" > "$pwfile"
  initdb --pgdata="$PGDATA" --username="$user" --pwfile="$pwfile" \
    --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C.UTF-8 >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  if [ "$database" != "postgres" ]; then
    echo "CREATE DATABASE \"$database\" OWNER \"$user\";" \
      | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgres-entrypoint: initialised $PGDATA (user $user, database $database)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
