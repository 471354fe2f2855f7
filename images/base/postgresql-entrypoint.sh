#!/bin/bash
# Entrypoint of the local PostgreSQL base image (images/base/postgresql.sh): the environment of the
# official postgres image. On an empty PGDATA: initdb with POSTGRES_USER as superuser and
# POSTGRES_PASSWORD (scram-sha-256 for every TCP client), then POSTGRES_DB. Then postgres, as PID 1.
set -euo pipefail
: "${PGDATA:?PGDATA is required}"
: "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}"
user="${POSTGRES_USER:-postgres}"
db="${POSTGRES_DB:-$user}"

if [[ ! -s "$PGDATA/PG_VERSION" ]]; then
  mkdir -p "$PGDATA"
  chmod 0700 "$PGDATA"
  pwfile="$(mktemp)"
  printf '%s\n' "$POSTGRES_PASSWORD" >"$pwfile"
  initdb --username="$user" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 \
    --encoding=UTF8 --locale=C.UTF-8 -D "$PGDATA" >/dev/null
  rm -f "$pwfile"
  echo "host all all all scram-sha-256" >>"$PGDATA/pg_hba.conf"
  if [[ "$db" != postgres ]]; then
    echo "CREATE DATABASE \"$db\" OWNER \"$user\";" | postgres --single -D "$PGDATA" -j postgres >/dev/null
  fi
  echo "postgresql-entrypoint: initialised $PGDATA (database $db)"
fi
exec postgres -D "$PGDATA" -c listen_addresses='*' "$@"
