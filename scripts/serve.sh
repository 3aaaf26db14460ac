#!/usr/bin/env bash
# Runs the production web server (scripts/server.mjs: a front process that records the connecting
# address and sheds overload, with Next in a child process behind it; the front exits when Next's
# process dies) and restarts it if it dies (issue 28: a process that exits must not stay down).
# `bash scripts/serve.sh [-H host]`, PORT (default 3000); or
# `bash scripts/serve.sh -- <command…>` to keep another server command running (the tests do).
#   - SIGTERM / SIGINT (Ctrl-C) stop the server and this loop; the server's exit status is returned.
#   - Any other exit of the server is logged and the server started again after a pause that doubles
#     on each quick crash (1 s, 2 s, 4 s … 30 s) and starts again from 1 s after a run of 60 s or more.
set -uo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = "--" ]; then
  shift
  cmd=("$@")
else
  cmd=(node scripts/server.mjs -p "${PORT:-3000}" "$@")
fi
child=""
stopping=""
stop() {
  stopping=1
  [ -n "$child" ] && kill -s "$1" "$child" 2>/dev/null
}
trap 'stop TERM' TERM
trap 'stop INT' INT
pause=1
while :; do
  started=$(date +%s)
  "${cmd[@]}" &
  child=$!
  # `wait` returns early when a trapped signal arrives: wait again for the server itself to exit.
  wait "$child"
  status=$?
  while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    status=$?
  done
  [ -n "$stopping" ] && exit "$status"
  if [ $(($(date +%s) - started)) -ge 60 ]; then pause=1; fi
  echo "graft: the server exited with status $status; restarting in ${pause} s" >&2
  sleep "$pause" &
  wait $! || true
  [ -n "$stopping" ] && exit "$status"
  pause=$((pause * 2 > 30 ? 30 : pause * 2))
done
