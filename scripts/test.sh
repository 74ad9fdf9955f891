#!/usr/bin/env bash
# Installs what is missing (npm packages, Debian packages, a PostgreSQL server), then runs every check and test:
# format and lint (Biome), types (tsc), and the node:test suites, the store suite on SQLite and PostgreSQL.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh test
# The sandbox tests' default image is built in the background while npm test runs its checks (biome, tsc) first;
# its log is .svc-test-cache/test-image.log.
mkdir -p .svc-test-cache
node_modules/.bin/node scripts/test-image.ts >.svc-test-cache/test-image.log 2>&1 &
if [ -z "${SVC_TEST_DATABASE_URL:-}" ]; then
  if [ "$(id -u)" = 0 ] && command -v pg_lsclusters >/dev/null; then
    SVC_TEST_DATABASE_URL=$(scripts/postgres.sh | tail -1)
    export SVC_TEST_DATABASE_URL
  else
    echo "no PostgreSQL here: the PostgreSQL store suite is skipped (set SVC_TEST_DATABASE_URL to run it)" >&2
  fi
fi
export npm_config_loglevel=error
exec npm test
