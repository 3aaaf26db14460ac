"""ONNX export of the decoder's decoding step (model.DecodeStep) with a KV cache.

As a command, exports the weights train.py --save-weights wrote (model.pt) into a folder, e.g. on
a machine whose PyTorch can export when the training machine's could not:

  /usr/bin/python3 workers/trainer/export.py RUN/model.pt OUT_DIR

A `tokens` model (model.py) exports two graphs: prefill.onnx (model.PrefillStep: the item's
words into the KV cache and the first step's hidden state) and decoder.onnx (model.TokenStep:
the step graph, with a key mask over the prefix's PAD words). Beside them export-check.json
holds a few inputs and torch's hidden states for them, so the Node side (lib/genret
onnx-session.ts) can show that onnxruntime gives the same numbers.
"""
import inspect
import json
import os

import numpy as np
import torch

from model import DecodeStep, PrefillStep, TokenStep, PAD

MASKED = -1e9
# PyTorch >= 2.9 exports through dynamo by default; these graphs were written and checked with
# the TorchScript exporter (the one PyTorch 1.13 has), so ask for it where there is a choice.
_EXPORTER = {"dynamo": False} if "dynamo" in inspect.signature(torch.onnx.export).parameters else {}


def _inputs(model, batch, past_len, device="cpu"):
    c = model.config
    dh = c["d"] // c["heads"]
    g = torch.Generator().manual_seed(1)
    query = torch.randn(batch, c["dim_in"], generator=g)
    query = query / query.norm(dim=-1, keepdim=True)
    facet = torch.randint(0, c["facets"], (batch,), generator=g)
    token_emb = model.tok.weight[torch.randint(2, c["vocab"], (batch,), generator=g)].detach().cpu()
    past = torch.randn(c["layers"], 2, batch, c["heads"], past_len, dh, generator=g) * 0.1
    beam = torch.arange(batch - 1, -1, -1)
    is_prefix = torch.tensor([1.0 if past_len == 0 else 0.0])
    return tuple(x.to(device) for x in (query, facet, token_emb, past, beam, is_prefix))


def _export_tokens(model, path):
    """prefill.onnx beside `path`, and the step graph at `path` (model.TokenStep)."""
    c = model.config
    dh = c["d"] // c["heads"]
    g = torch.Generator().manual_seed(1)
    facet = torch.randint(0, c["facets"], (3,), generator=g)
    words = torch.randint(2, c["vocab"], (3, 4), generator=g)
    words[1, 2:] = PAD
    prefill = os.path.join(os.path.dirname(path), "prefill.onnx")
    tmp = f"{prefill}.tmp-{os.getpid()}"
    with torch.no_grad():
        torch.onnx.export(
            PrefillStep(model).cpu().eval(),
            (facet, words),
            tmp,
            input_names=["facet", "words"],
            output_names=["hidden", "present"],
            dynamic_axes={"facet": {0: "batch"}, "words": {0: "batch", 1: "words"}, "hidden": {0: "batch"}, "present": {2: "batch", 4: "prefix_len"}},
            opset_version=14,
            **_EXPORTER,
        )
    os.replace(tmp, prefill)
    past = torch.randn(c["layers"], 2, 3, c["heads"], 5, dh, generator=g) * 0.1
    token_emb = model.tok.weight[torch.randint(2, c["vocab"], (3,), generator=g)].detach().cpu()
    key_mask = torch.zeros(3, 6)
    key_mask[1, 3:5] = MASKED
    tmp = f"{path}.tmp-{os.getpid()}"
    with torch.no_grad():
        torch.onnx.export(
            TokenStep(model).cpu().eval(),
            (token_emb, past, torch.arange(2, -1, -1), key_mask, torch.tensor([1])),
            tmp,
            input_names=["token_emb", "past", "beam", "key_mask", "step"],
            output_names=["hidden", "present"],
            dynamic_axes={
                "token_emb": {0: "batch"},
                "past": {2: "past_batch", 4: "past_len"},
                "beam": {0: "batch"},
                "key_mask": {0: "batch", 1: "keys"},
                "hidden": {0: "batch"},
                "present": {2: "batch", 4: "present_len"},
            },
            opset_version=14,
            **_EXPORTER,
        )
    os.replace(tmp, path)
    return [prefill]


@torch.no_grad()
def export_check(model, steps=3):
    """A fixed decoding path through the model and torch's final hidden states on it (teacher
    forcing with the hidden() used in training): items of different lengths (one empty),
    a beam reorder at every step. The Node side replays it through the exported graphs."""
    c = model.config
    g = torch.Generator().manual_seed(7)
    n = 3
    facet = torch.tensor([0, c["facets"] - 1, 1 % c["facets"]])
    words = torch.full((n, min(5, model.item_tokens)), PAD, dtype=torch.long)
    for i, length in enumerate([words.shape[1], 0, min(2, words.shape[1])]):
        words[i, :length] = torch.randint(2, c["vocab"], (length,), generator=g)
    # Row r of step k continues row parents[k][r] of step k - 1 (a fixed permutation).
    parents = [list(range(n - 1, -1, -1)) for _ in range(steps)]
    tokens = torch.randint(2, c["vocab"], (steps, n), generator=g)
    # Teacher forcing needs each final row's own history: follow the parents back.
    origin = list(range(n))
    histories = [[] for _ in range(n)]
    for k in range(steps - 1, -1, -1):
        for r in range(n):
            histories[r].insert(0, int(tokens[k, origin[r]]))
            origin[r] = parents[k][origin[r]]
    rows = torch.tensor(origin)
    m = model.cpu().eval()
    hidden = m.ln(m.hidden(words[rows], facet[rows], torch.tensor(histories)))
    first = m.ln(m.hidden(words, facet, torch.zeros(n, 0, dtype=torch.long)))[:, 0]
    return {
        "facet": facet.tolist(),
        "words": words.tolist(),
        "parents": parents,
        "tokens": tokens.tolist(),
        "first": first.reshape(-1).tolist(),
        "last": hidden[:, -1].reshape(-1).tolist(),
    }


def export_onnx(model, path, check=True):
    """Writes the step graph to `path` atomically (and a `tokens` model's prefill graph beside
    it); with check, runs onnx's checker on the graphs and, for a `tokens` model, writes
    export-check.json (export_check) for the Node side to compare against."""
    was = next(model.parameters()).device
    model.cpu().eval()
    graphs = [path]
    if model.condition == "tokens":
        graphs += _export_tokens(model, path)
    else:
        _export_vector(model, path)
    # The tied output layer: [V, d] weights then [V] bias, little-endian f32.
    out_file = os.path.join(os.path.dirname(path), "output.f32")
    table = torch.cat([model.tok.weight.detach().cpu().reshape(-1), model.bias.detach().cpu()]).numpy().astype("<f4")
    table.tofile(out_file + ".tmp")
    os.replace(out_file + ".tmp", out_file)
    info = {"file": os.path.basename(path), "bytes": sum(os.path.getsize(g) for g in graphs) + os.path.getsize(out_file), "opset": 14}
    if check:
        import onnx

        for g in graphs:
            onnx.checker.check_model(g)
        info["checked"] = True
        if model.condition == "tokens":
            check_file = os.path.join(os.path.dirname(path), "export-check.json")
            with open(check_file + ".tmp", "w") as f:
                json.dump(export_check(model), f)
            os.replace(check_file + ".tmp", check_file)
    model.to(was)
    return info


def _export_vector(model, path):
    step = DecodeStep(model).cpu().eval()
    tmp = f"{path}.tmp-{os.getpid()}"
    with torch.no_grad():
        torch.onnx.export(
            step,
            _inputs(model, 3, 2),
            tmp,
            input_names=["query", "facet", "token_emb", "past", "beam", "is_prefix"],
            output_names=["hidden", "present"],
            dynamic_axes={
                "query": {0: "batch"},
                "facet": {0: "batch"},
                "token_emb": {0: "batch"},
                "past": {2: "past_batch", 4: "past_len"},
                "beam": {0: "batch"},
                "hidden": {0: "batch"},
                "present": {2: "batch", 4: "present_len"},
            },
            opset_version=14,
            **_EXPORTER,
        )
    os.replace(tmp, path)


def main(argv=None):
    import argparse
    import sys

    p = argparse.ArgumentParser(description="export model.pt (train.py --save-weights) to ONNX")
    p.add_argument("weights")
    p.add_argument("out")
    a = p.parse_args(argv)
    from model import DocIdDecoder

    saved = torch.load(a.weights, map_location="cpu", **({"weights_only": False} if "weights_only" in inspect.signature(torch.load).parameters else {}))
    model = DocIdDecoder(**saved["config"])
    model.load_state_dict(saved["model"])
    os.makedirs(a.out, exist_ok=True)
    info = export_onnx(model.eval(), os.path.join(a.out, "decoder.onnx"), check=True)
    with open(os.path.join(a.out, "config.json"), "w") as f:
        json.dump({"config": model.config, "weights": a.weights}, f, indent=1)
    print(json.dumps(info), file=sys.stdout)


if __name__ == "__main__":
    main()
