#!/usr/bin/env bash
# Starts a throwaway PostgreSQL server (Debian's postgresql package) on 127.0.0.1 and prints
# its DATABASE_URL on the last line. Used by the test suite and for trying Graft on
# PostgreSQL locally. Usage: scripts/db/pg-start.sh [DIR] [PORT]; stop with scripts/db/pg-stop.sh DIR.
set -euo pipefail
dir=${1:-${GRAFT_PG_DIR:-/tmp/graft-pg}}
port=${2:-${GRAFT_PG_PORT:-}}
bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n1 || true)
if [ -z "$bin" ] || [ ! -x "$bin/initdb" ]; then
  echo "PostgreSQL server binaries not found: apt-get install -y postgresql" >&2
  exit 1
fi
if [ -z "$port" ]; then
  port=$(node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
fi
# initdb and postgres refuse to run as root: run them as the postgres user when we are root.
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
if [ ! -f "$dir/PG_VERSION" ]; then
  mkdir -p "$dir"
  [ "$(id -u)" = 0 ] && chown postgres:postgres "$dir"
  run "$bin/initdb" -D "$dir" -U graft --auth=trust -E UTF8 >/dev/null
fi
run "$bin/pg_ctl" -D "$dir" -l "$dir/server.log" -w -o "-h 127.0.0.1 -p $port -k /tmp -F" start >/dev/null
echo "$port" > "$dir/port"
run "$bin/psql" -h 127.0.0.1 -p "$port" -U graft -d postgres -tAc "SELECT 1 FROM pg_database WHERE datname='graft'" | grep -q 1 \
  || run "$bin/createdb" -h 127.0.0.1 -p "$port" -U graft graft
echo "postgresql://graft@127.0.0.1:$port/graft"
