#!/usr/bin/env bash
# `npm run test:faults`: the fault and abuse suite (issue 28), every `*.fault.test.ts` file: each test
# does the fault or the abuse (bursts, aborted requests, bombs, forged headers, a busy or broken
# store, damaged builds) and asserts the guarantee. `npm test` runs these files with the others.
set -euo pipefail
cd "$(dirname "$0")/.."
mapfile -t files < <(find lib workers components -name '*.fault.test.ts' -not -path '*/generated/*' | sort)
[ ${#files[@]} -gt 0 ] || { echo "no *.fault.test.ts files" >&2; exit 1; }
exec node --import tsx --test --test-concurrency=1 "${files[@]}"
