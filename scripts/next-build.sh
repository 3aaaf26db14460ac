#!/usr/bin/env bash
# `next build`, unless the last successful one is newer than every file the app is built from
# (a re-run of demo.sh or npm test then skips its ~40 s). Delete .next to force a build.
set -euo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
stamp=${GRAFT_NEXT_DIST:-.next}/graft-build-stamp
inputs=()
for f in app components lib public proxy.ts instrumentation.ts next.config.ts postcss.config.mjs tsconfig.json \
  package.json package-lock.json node_modules/.package-lock.json; do
  [ -e "$f" ] && inputs+=("$f")
done
if [ -f "$stamp" ] && [ -z "$(find -L "${inputs[@]}" -newer "$stamp" -print -quit 2>/dev/null)" ]; then
  echo "next build: skipped, ${GRAFT_NEXT_DIST:-.next} is newer than every source file (delete it to rebuild)"
  exit 0
fi
rm -f "$stamp"
node_modules/.bin/next build
touch "$stamp"
