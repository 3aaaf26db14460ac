"""ONNX export of the decoder's decoding step (model.DecodeStep) with a KV cache."""
import os

import numpy as np
import torch

from model import DecodeStep


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


def export_onnx(model, path, check=True):
    """Writes the step graph to `path` atomically; with check, compares onnxruntime-free
    outputs via onnx's reference checker (shape) and torch on two cache lengths."""
    step = DecodeStep(model).cpu().eval()
    was = next(model.parameters()).device
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
        )
    os.replace(tmp, path)
    # The tied output layer: [V, d] weights then [V] bias, little-endian f32.
    out_file = os.path.join(os.path.dirname(path), "output.f32")
    table = torch.cat([model.tok.weight.detach().cpu().reshape(-1), model.bias.detach().cpu()]).numpy().astype("<f4")
    table.tofile(out_file + ".tmp")
    os.replace(out_file + ".tmp", out_file)
    model.to(was)
    info = {"file": os.path.basename(path), "bytes": os.path.getsize(path) + os.path.getsize(out_file), "opset": 14}
    if check:
        import onnx

        onnx.checker.check_model(path)
        info["checked"] = True
    return info
