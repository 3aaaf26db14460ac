#!/usr/bin/env bash
# Stops the server started by pg-start.sh (and removes its data when --rm is given).
set -euo pipefail
dir=${1:-${GRAFT_PG_DIR:-/tmp/graft-pg}}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n1)
run() { if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }
[ -f "$dir/postmaster.pid" ] && run "$bin/pg_ctl" -D "$dir" -m fast -w stop >/dev/null || true
if [ "${2:-}" = "--rm" ]; then rm -rf "$dir"; fi
