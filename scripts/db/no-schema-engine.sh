#!/bin/sh
echo "Graft applies migrations offline with Prisma's WASM schema engine: run 'npm run db:migrate' (or 'npm run graft -- db migrate')." >&2
exit 1
