#!/usr/bin/env bash
# Starts Debian's PostgreSQL on loopback for the tests, idempotently, and prints the test database URL.
set -euo pipefail
version=$(ls /usr/lib/postgresql | sort -n | tail -1)
cluster=main
if ! pg_lsclusters -h 2>/dev/null | awk '{print $1" "$2}' | grep -qx "$version $cluster"; then
  pg_createcluster "$version" "$cluster" >/dev/null
fi
if ! pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1==v && $2==c {print $4}' | grep -qx online; then
  pg_ctlcluster "$version" "$cluster" start
fi
port=$(pg_lsclusters -h | awk -v v="$version" -v c="$cluster" '$1==v && $2==c {print $3}')
for _ in $(seq 1 50); do
  pg_isready -q -h 127.0.0.1 -p "$port" && break
  sleep 0.2
done
psql_root() { runuser -u postgres -- psql -p "$port" -qtAX "$@"; }
if [ "$(psql_root -c "select 1 from pg_roles where rolname='svc'")" != 1 ]; then
  psql_root -c "create role svc login superuser password 'svc'" >/dev/null
fi
if [ "$(psql_root -c "select 1 from pg_database where datname='svc_test'")" != 1 ]; then
  runuser -u postgres -- createdb -p "$port" -O svc svc_test
fi
echo "postgres://svc:svc@127.0.0.1:${port}/svc_test"
