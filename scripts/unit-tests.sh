#!/usr/bin/env bash
# Runs every *.test.ts under lib/ (and workers/, components/, lint/) with node's own test runner.
# Node 20 has no glob support in --test, so the files are listed here.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find lib workers components lint -name '*.test.ts' -not -path '*/generated/*' 2>/dev/null | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no unit tests found" >&2; exit 1; fi
exec node --import tsx --test --test-concurrency=2 "$@" "${files[@]}"
