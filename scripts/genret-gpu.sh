#!/usr/bin/env bash
# The generative retriever that reads the query item's words (`--condition tokens`, issue 31),
# trained on one GPU in under 10 minutes. Two steps, because the GPU machine has Python and
# PyTorch but not this repository's Node toolchain, and nothing there may be downloaded:
#
#   bash scripts/genret-gpu.sh prepare [DIR]   # here (CPU, ~3-4 min): the training pack, token prior, identifiers
#   bash scripts/genret-gpu.sh train [DIR]     # on the GPU machine (carry DIR): train, export ONNX, assemble DIR/model
#   bash scripts/genret-gpu.sh check [DIR]     # back here: onnxruntime-node vs torch on the exported graphs
#   bash scripts/genret-gpu.sh export [DIR]    # only if the GPU's PyTorch failed to export: export DIR/run/model.pt here
#   npm run graft -- build --stage genret --pretrained DIR/model   # install it as the corpus's genret build
#
# DIR defaults to .graft/genret-gpu (ignored by git; about 40 MB, under the device's 64 MiB carry).
# prepare distils the newest graph build under GRAFT_DATA_ROOT (the default graph) with the
# paper's coverage-aware sampling (variant +fallback: oversampling, K_min floor, reverse-neighbour
# fallback) and drops queries.f32 from the pack: a tokens model never reads the item vectors.
# train resumes from DIR/run/checkpoint.pt when rerun. Sizes and budget (override by env):
#   GENRET_MINUTES (7.5: training; the LR schedule fits it, pack load and export add ~1 min),
#   GENRET_D_MODEL (256) GENRET_LAYERS (4) GENRET_HEADS (4) GENRET_FF (1024) GENRET_BATCH (1024)
#   GENRET_LR (3e-3) GENRET_EPOCHS (60: a cap; the time budget ends the run first) GENRET_DEVICE (cuda)
#   GENRET_VARIANT (+fallback, prepare only) GRAFT_PYTHON (python3: the one with torch + onnx; on
#   the 2-core development machines /usr/bin/python3, see ../shared/STACK.md).
set -euo pipefail
cd "$(dirname "$0")/.."
step="${1:-}"
dir="${2:-.graft/genret-gpu}"
py="${GRAFT_PYTHON:-python3}"

prepare() {
  local variant="${GENRET_VARIANT:-+fallback}"
  mkdir -p "$dir"
  node_modules/.bin/tsx scripts/train/genret-pack.ts --out "$dir/ids" --variant "$variant" ${GENRET_BUILD:+--build "$GENRET_BUILD"} >"$dir/pack-report.json"
  node_modules/.bin/tsx scripts/train/genret-token-prior.ts --out "$dir/ids/pack/token-prior.f32" ${GENRET_BUILD:+--build "$GENRET_BUILD"} >/dev/null
  rm -f "$dir/ids/pack/queries.f32"
  # papers.json (node order) and genret.json, what `--pretrained` checks the model against.
  node_modules/.bin/tsx -e '
    const { readFileSync, writeFileSync } = require("node:fs");
    const [dir, variant] = process.argv.slice(1);
    const report = JSON.parse(readFileSync(`${dir}/pack-report.json`, "utf8"));
    const pack = JSON.parse(readFileSync(`${dir}/ids/pack/pack.json`, "utf8"));
    const { externalIds } = JSON.parse(readFileSync(`${report.buildDir}/papers.json`, "utf8"));
    writeFileSync(`${dir}/papers.json`, JSON.stringify({ externalIds }));
    writeFileSync(`${dir}/genret.json`, JSON.stringify({ embedder: pack.embedder, variant, condition: "tokens", graphBuild: report.buildDir }, null, 1));
  ' "$dir" "$variant"
  du -sh "$dir"
}

train() {
  [ -f "$dir/ids/pack/pack.json" ] || { echo "genret-gpu: no training pack under $dir (run: bash scripts/genret-gpu.sh prepare $dir, then carry $dir)" >&2; exit 2; }
  local budget
  budget=$("$py" -c "print(int(float('${GENRET_MINUTES:-7.5}') * 60))")
  PYTHONUNBUFFERED=1 "$py" workers/trainer/train.py --pack "$dir/ids/pack" --out "$dir/run" --condition tokens \
    --device "${GENRET_DEVICE:-cuda}" --d-model "${GENRET_D_MODEL:-256}" --layers "${GENRET_LAYERS:-4}" --heads "${GENRET_HEADS:-4}" \
    --ff "${GENRET_FF:-1024}" --batch "${GENRET_BATCH:-1024}" --lr "${GENRET_LR:-3e-3}" --epochs "${GENRET_EPOCHS:-60}" \
    --time-budget "$budget" --init-tokens "$dir/ids/pack/token-prior.f32" --progress-every 15 --checkpoint-every 120 --save-weights
  assemble
}

# The model folder `graft build --stage genret --pretrained` installs (it rebuilds the tries).
assemble() {
  mkdir -p "$dir/model"
  for f in decoder.onnx prefill.onnx output.f32 config.json train.json export-check.json; do cp "$dir/run/$f" "$dir/model/$f"; done
  cp "$dir/ids/vocab.json" "$dir/papers.json" "$dir/genret.json" "$dir/model/"
  ls -l "$dir/model"
}

# model.pt (23 MB at the default size) is what to bring back when the export failed there.
export_here() {
  [ -f "$dir/run/model.pt" ] || { echo "genret-gpu: no $dir/run/model.pt (train writes it)" >&2; exit 2; }
  "$py" workers/trainer/export.py "$dir/run/model.pt" "$dir/run"
  [ -f "$dir/run/train.json" ] || echo '{}' >"$dir/run/train.json"
  assemble
}

check() {
  node_modules/.bin/tsx -e '
    import("./lib/genret/export-check.ts").then(async ({ exportCheckDifference }) => {
      const d = await exportCheckDifference(process.argv[1]);
      console.log(JSON.stringify(d));
      if (!(d.first < 1e-4 && d.last < 1e-4)) process.exit(1);
    });
  ' "$dir/model"
}

case "$step" in
  prepare) prepare ;;
  train) train ;;
  check) check ;;
  export) export_here ;;
  *)
    echo "usage: bash scripts/genret-gpu.sh prepare|train|check|export [DIR]" >&2
    exit 2
    ;;
esac
