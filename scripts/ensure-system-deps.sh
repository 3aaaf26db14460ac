#!/usr/bin/env bash
# Installs the Debian packages the test suite needs (Chromium for Playwright, PostgreSQL for
# the server-store tests, PyTorch + ONNX + OpenBLAS for the generative retriever's trainer)
# when they are missing. Needs root for apt-get; otherwise it says
# what to install. The app itself (scripts/demo.sh) needs neither.
set -euo pipefail
missing=()
[ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ] || missing+=(chromium)
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || missing+=(postgresql)
# The trainer runs on Debian's python3 (not a pyenv one without torch); OpenBLAS makes torch ~30x faster.
/usr/bin/python3 -c "import torch, onnx" >/dev/null 2>&1 || missing+=(python3-torch python3-onnx)
ls /usr/lib/*/openblas-pthread/libopenblas.so.0 >/dev/null 2>&1 || missing+=(libopenblas0-pthread)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "missing system packages: ${missing[*]} (Debian: sudo apt-get install -y --no-install-recommends ${missing[*]})" >&2
  exit 1
fi
echo "installing ${missing[*]} with apt-get…" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq >/dev/null
apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
