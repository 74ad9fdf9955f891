#!/usr/bin/env bash
# Installs what is missing, then runs the server on its embedded defaults (SQLite in ./.svc, port 8900).
# Extra arguments go to `svc server`, e.g. scripts/start.sh --port 9000.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install.sh runtime
exec node_modules/.bin/node packages/cli/src/main.ts server "$@"
