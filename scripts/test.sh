#!/usr/bin/env bash
# `npm test`: type-check, lint, format check, unit + integration tests on SQLite, the integration tests
# again on PostgreSQL, a production build and the Playwright e2e tests in Debian's
# Chromium. Every step runs even if an earlier one fails; the last line is the plain
# "N passed, N failed" summary (tests counted from each runner, checks as one each).
set -uo pipefail
cd "$(dirname "$0")/.."
export NEXT_TELEMETRY_DISABLED=1
root=$(pwd)
work=$(mktemp -d /tmp/graft-test.XXXXXX)
passed=0 failed=0 failures=()
# Outside $work: mktemp makes $work private to us, and the server runs as the postgres user.
pg_dir=$(mktemp -u /tmp/graft-pg.XXXXXX)

cleanup() { [ -f "$pg_dir/postmaster.pid" ] && scripts/db/pg-stop.sh "$pg_dir" --rm; rm -rf "$work"; }
trap cleanup EXIT

count() { passed=$((passed + $1)); failed=$((failed + $2)); [ "$2" -gt 0 ] && failures+=("$3"); return 0; }
check() { # a check that passes or fails as a whole
  local name=$1; shift
  echo "── $name"
  if "$@"; then count 1 0 "$name"; else count 0 1 "$name"; fi
}
node_tests() { # runs node's test runner over files, counting its pass/fail totals
  local name=$1; shift
  echo "── $name"
  local tap="$work/$(echo "$name" | tr -c 'a-z0-9' _).tap"
  node --import tsx --test --test-concurrency=1 --test-reporter=spec --test-reporter-destination=stdout \
    --test-reporter=tap --test-reporter-destination="$tap" "$@"
  local rc=$? p f
  p=$(grep -E '^# pass ' "$tap" | awk '{s+=$3} END {print s+0}')
  f=$(grep -E '^# fail ' "$tap" | awk '{s+=$3} END {print s+0}')
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f" "$name"
}

bash scripts/ensure-system-deps.sh || count 0 1 "system packages"

check "type-check" npx tsc --noEmit -p .
check "lint" npx eslint --max-warnings 0 .
check "format" npx prettier --check --log-level warn .
check "prisma/postgres/schema.prisma in sync" npx tsx scripts/db/sync-schemas.ts --check

mapfile -t unit < <(find lib workers components lint -name '*.test.ts' -not -path '*/generated/*' 2>/dev/null | sort)
node_tests "unit + integration tests (SQLite)" "${unit[@]}"

# Integration tests are the files that use the test-database helpers (lib/db/testing.ts).
mapfile -t integration < <(grep -l "@/lib/db/testing" "${unit[@]}")
if pg_url=$(scripts/db/pg-start.sh "$pg_dir" | tail -n1); then
  GRAFT_TEST_PG_URL=$pg_url node_tests "integration tests (PostgreSQL)" "${integration[@]}"
else
  count 0 1 "PostgreSQL server start"
fi

# e2e: a fresh SQLite store with the demo corpus, its typed graph and the shipped generative
# retriever, a production build, Playwright. Item vectors already embedded under .graft are
# reused (a fresh machine embeds them once: a few minutes).
export DATABASE_URL="file:$work/e2e.db" GRAFT_DATA_ROOT="$work/data"
mkdir -p "$GRAFT_DATA_ROOT"
[ -d .graft/vectors ] && cp -r .graft/vectors "$GRAFT_DATA_ROOT/"
e2e_setup() {
  npx tsx lib/cli/main.ts db migrate && npx tsx lib/cli/main.ts import >/dev/null &&
    npx tsx lib/cli/main.ts build --stage graph >/dev/null &&
    { [ ! -f lib/genret/pretrained/acl-citegraph/decoder.onnx ] || npx tsx lib/cli/main.ts build --stage genret --pretrained >/dev/null; } &&
    npx next build >"$work/build.log" 2>&1
}
if e2e_setup; then
  [ -d .graft/vectors ] || { mkdir -p .graft && cp -r "$GRAFT_DATA_ROOT/vectors" .graft/; }
  echo "── e2e (Playwright, Chromium)"
  npx playwright test --reporter=list 2>&1 | tee "$work/e2e.log"
  rc=${PIPESTATUS[0]}
  p=$(grep -Eo '[0-9]+ passed' "$work/e2e.log" | tail -n1 | awk '{print $1+0}')
  f=$(grep -Eo '[0-9]+ failed' "$work/e2e.log" | tail -n1 | awk '{print $1+0}')
  p=${p:-0} f=${f:-0}
  [ "$rc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
  count "$p" "$f" "e2e"
else
  cat "$work/build.log" 2>/dev/null | tail -40
  count 0 1 "e2e set-up (migrate, import, next build)"
fi

echo
[ ${#failures[@]} -gt 0 ] && echo "failed: ${failures[*]}"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
