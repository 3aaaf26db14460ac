#!/usr/bin/env bash
# One command from a fresh clone to a running Graft on the demo corpus: install, generate
# the Prisma clients, migrate the embedded SQLite store, import ../shared/data/acl-citegraph
# (idempotent), build the typed graph, install the shipped generative retriever, build the
# web app and start it on http://localhost:${PORT:-3000} under a restart loop (scripts/serve.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1 ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  npm ci --no-audit --no-fund
fi
# The graft CLI through the installed tsx: `npx` adds 1-3 s of npm's own start-up to every step,
# a third of a re-run that has nothing to do.
graft() { node_modules/.bin/tsx lib/cli/main.ts "$@"; }
graft db migrate
graft import "$@"
# The typed graph: the demo corpus embeds its facet items with the text encoder shipped for it
# (models/acl-contrastive: seconds, cached after; `--embedder use-lite` takes minutes). Then the
# generative retriever trained for the demo corpus, which ships with the repo (`graft build
# --stage genret` retrains it, see README); both in one command, one CLI start-up fewer.
if [ -f models/genret-acl-citegraph/decoder.onnx ]; then
  graft build --stage all --pretrained --if-missing
else
  graft build --stage graph --if-missing
fi
# The web app's production build, skipped when no source file changed since the last one.
bash scripts/next-build.sh
echo "Graft is starting on http://localhost:${PORT:-3000}"
# Under a restart loop: a server process that dies is started again (Ctrl-C still stops it).
exec bash scripts/serve.sh
