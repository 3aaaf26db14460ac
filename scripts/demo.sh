#!/usr/bin/env bash
# One command from a fresh clone to a running Graft on the demo corpus: install, generate
# the Prisma clients, migrate the embedded SQLite store, import ../shared/data/acl-citegraph
# (idempotent), build and start on http://localhost:${PORT:-3000}.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
npx tsx lib/cli/main.ts db migrate
npx tsx lib/cli/main.ts import "$@"
npx next build
echo "Graft is starting on http://localhost:${PORT:-3000}"
exec npx next start -p "${PORT:-3000}"
