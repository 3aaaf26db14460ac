#!/usr/bin/env python3
"""Trains the generative retriever's decoder on a training pack (lib/genret/pack.ts) and
exports it to ONNX with a KV cache for decoding in Node (lib/genret/decode.ts).

  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 workers/trainer/train.py --pack DIR --out DIR [flags]

Resumable: a checkpoint (model, optimiser, schedule, data order, RNG) is written atomically
to OUT/checkpoint.pt every --checkpoint-every seconds and at the end; a rerun with the same
OUT continues from it, so a killed run loses at most that much work. Progress is printed as
JSON lines on stdout ({"event": "progress", ...}); the caller (a Graft job) parses them.
Runs on a CUDA GPU when one is present (or --device), else on the CPU with the thread
settings measured best on 2 cores (torch 1 thread, OpenBLAS 2 threads).

--condition tokens trains the prefix-LM variant (model.py) on the pack's itemTokens.i32 (the
query item's own words) instead of its frozen vector; the choice is saved in the checkpoint
and config.json, so decoding (lib/genret/onnx-session.ts) picks the matching graphs.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

import argparse
import inspect
import json
import math
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from model import DocIdDecoder  # noqa: E402
from export import export_onnx  # noqa: E402


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


def load_pack(path, vectors=True):
    """The pack's arrays; vectors=False skips queries.f32 (a tokens model never reads it, so a
    pack carried to a GPU machine may leave it out: it is most of the pack's bytes)."""
    with open(os.path.join(path, "pack.json")) as f:
        h = json.load(f)
    if h.get("format") != "graft-genret-pack":
        raise SystemExit(f"{path}: not a graft training pack")
    q = np.fromfile(os.path.join(path, "queries.f32"), dtype="<f4").reshape(h["numQueries"], h["dim"]) if vectors else None
    t = np.fromfile(os.path.join(path, "targets.i32"), dtype="<i4").reshape(h["numTargets"], h["maxLen"])
    e = np.fromfile(os.path.join(path, "examples.i32"), dtype="<i4").reshape(h["numExamples"], 4)
    w = np.fromfile(os.path.join(path, "weights.f32"), dtype="<f4")
    d = np.fromfile(os.path.join(path, "decisions.u8"), dtype="u1").reshape(h["numTargets"], h["maxLen"])
    return h, q, t, e, w, d


def load_item_tokens(path, header):
    """itemTokens.i32 [numQueries, maxTokens] (lib/genret/pack.ts), or exit saying how to get one."""
    info = header.get("itemTokens")
    if not info:
        raise SystemExit(f"{path}: this pack has no item tokens (itemTokens.i32): --condition tokens needs a pack written with the item texts "
                         "(graft build --stage genret --condition tokens writes one)")
    return np.fromfile(os.path.join(path, "itemTokens.i32"), dtype="<i4").reshape(header["numQueries"], info["maxTokens"])


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pack", required=True)
    p.add_argument("--out", required=True)
    p.add_argument("--condition", choices=["vector", "tokens"], default="vector",
                   help="what the decoder reads of the query item: its frozen vector (one prefix position) or its own tokens (a prefix LM)")
    p.add_argument("--item-tokens", type=int, default=0, help="with --condition tokens: the first N item tokens (0: all the pack holds)")
    p.add_argument("--d-model", type=int, default=256)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--heads", type=int, default=4)
    p.add_argument("--ff", type=int, default=1024)
    p.add_argument("--dropout", type=float, default=0.1)
    p.add_argument("--epochs", type=float, default=10.0)
    p.add_argument("--time-budget", type=float, default=0, help="seconds of training (0: none); the LR schedule is fitted to it")
    p.add_argument("--max-steps", type=int, default=0, help="at most this many optimiser steps (equal budgets across data variants)")
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=200, help="warm-up steps")
    p.add_argument("--weight-decay", type=float, default=0.01)
    p.add_argument("--label-smoothing", type=float, default=0.0)
    p.add_argument("--unlikelihood", type=float, default=0.0, help="weight of the unlikelihood term on hard negatives (needs a pack with negatives)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--all-positions", action="store_true",
                   help="train on every DocID token; by default only positions where the trie leaves a choice (the rest are forced at decoding)")
    p.add_argument("--checkpoint-every", type=float, default=180, help="seconds")
    p.add_argument("--snapshot-every", type=int, default=0, help="also export an ONNX snapshot every N examples (learning curves)")
    p.add_argument("--progress-every", type=float, default=10, help="seconds")
    p.add_argument("--device", default="auto", help="auto | cpu | cuda")
    p.add_argument("--threads", type=int, default=1, help="torch intra-op threads on the CPU")
    p.add_argument("--init-tokens", help="token prior (float32 [vocab, dim], lib/genret/token-prior.ts) to initialise token embeddings and the query projection from")
    p.add_argument("--no-export", action="store_true")
    p.add_argument("--save-weights", action="store_true",
                   help="also write OUT/model.pt (config + weights, no optimiser) before exporting: export.py can export it on another machine")
    return p.parse_args(argv)


def save_atomic(obj, path):
    tmp = f"{path}.tmp-{os.getpid()}"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def main(argv=None):
    args = parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    device = torch.device("cuda" if (args.device == "auto" and torch.cuda.is_available()) else ("cpu" if args.device == "auto" else args.device))
    if device.type == "cuda" and not torch.cuda.is_available():
        # Before the pack is read: at 64k papers that alone takes a while.
        raise SystemExit("--device cuda: this PyTorch sees no CUDA GPU (torch.cuda.is_available() is false). On a GPU machine install a "
                         "CUDA build of PyTorch and point GRAFT_PYTHON at its python, or train with --device cpu")
    if device.type == "cpu":
        torch.set_num_threads(args.threads)
    else:
        # TF32 matrix products on the GPU: several times fp32's rate, ample for training.
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
    torch.manual_seed(args.seed)

    header, queries, targets, examples, weights, decisions = load_pack(args.pack, vectors=args.condition == "vector")
    n = header["numExamples"]
    if n == 0:
        raise SystemExit("the training pack has no examples")
    if args.unlikelihood > 0 and not header["hasNegatives"]:
        raise SystemExit("--unlikelihood needs a pack built with hard negatives")
    item_tokens = 0
    if args.condition == "tokens":
        words = load_item_tokens(args.pack, header)
        item_tokens = min(args.item_tokens or words.shape[1], words.shape[1])
        # The decoder reads token ids instead of vectors: same rows, so examples.i32 is unchanged.
        q_all = torch.from_numpy(words[:, :item_tokens].astype(np.int64)).to(device)
    else:
        q_all = torch.from_numpy(queries).to(device)
    t_all = torch.from_numpy(targets.astype(np.int64)).to(device)
    d_all = torch.from_numpy(decisions.astype(np.float32)).to(device)
    e_all = torch.from_numpy(examples.astype(np.int64))
    w_all = torch.from_numpy(weights)

    model = DocIdDecoder(header["vocabSize"], header["dim"], d=args.d_model, layers=args.layers, heads=args.heads, ff=args.ff,
                         max_len=header["maxLen"], facets=len(header["facets"]), dropout=args.dropout,
                         condition=args.condition, item_tokens=item_tokens).to(device)
    decay = [p for name, p in model.named_parameters() if p.dim() >= 2]
    no_decay = [p for name, p in model.named_parameters() if p.dim() < 2]
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": args.weight_decay}, {"params": no_decay, "weight_decay": 0.0}], lr=args.lr)

    token_prior = 0
    if args.init_tokens:
        prior = np.fromfile(args.init_tokens, dtype="<f4")
        if prior.size != header["vocabSize"] * header["dim"]:
            raise SystemExit(f"{args.init_tokens}: {prior.size} floats, expected {header['vocabSize']} x {header['dim']} (vocabulary x query dimension)")
        token_prior = model.init_token_prior(torch.from_numpy(prior.reshape(header["vocabSize"], header["dim"])).to(device))

    steps_per_epoch = math.ceil(n / args.batch)
    state = {"step": 0, "seen": 0, "epoch": 0, "pos": 0, "total_steps": None, "train_seconds": 0.0, "next_snapshot": args.snapshot_every}
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    resumed = False
    if os.path.exists(ckpt_path):
        # Our own file: the whole state, not only tensors (PyTorch >= 2.6 defaults to weights_only).
        ck = torch.load(ckpt_path, map_location=device, **({"weights_only": False} if "weights_only" in inspect.signature(torch.load).parameters else {}))
        if ck["config"] != model.config:
            raise SystemExit(f"{ckpt_path} was trained with {ck['config']}, not {model.config}: use another --out")
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["optimizer"])
        state = ck["state"]
        torch.set_rng_state(ck["rng"].cpu())  # map_location moved it; the CPU generator needs a CPU tensor
        resumed = True
        old = ck.get("args", {})
        if old.get("epochs") != args.epochs or old.get("time_budget") != args.time_budget or old.get("max_steps") != args.max_steps:
            # A longer (or shorter) run than the checkpoint planned: refit the LR schedule.
            state["total_steps"] = None
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump({"config": model.config, "pack": args.pack}, f, indent=1)
    emit("start", params=model.parameter_count(), examples=n, device=str(device), resumed=resumed, config=model.config,
         seen=state["seen"], epochs=args.epochs, timeBudget=args.time_budget, tokenPrior=0 if resumed else token_prior)

    # Length of each example's loss span, for bucketing: batches of similar length waste no
    # compute on padding. Chunks of 64 batches are sorted by length, then the batch order is
    # shuffled, so every batch is still a random sample of the data.
    loss_mask = (targets != 0) if args.all_positions else ((targets != 0) & (decisions > 0))
    span = np.where(loss_mask.any(1), loss_mask.shape[1] - np.argmax(loss_mask[:, ::-1], axis=1), 1)
    example_span = torch.from_numpy(span[examples[:, 2]].astype(np.int64))

    def order_for(epoch):
        g = torch.Generator().manual_seed(args.seed * 1_000_003 + epoch)
        perm = torch.randperm(n, generator=g)
        chunk = args.batch * 64
        batches = []
        for s0 in range(0, n, chunk):
            part = perm[s0: s0 + chunk]
            part = part[torch.argsort(example_span[part], stable=True)]
            batches.extend(part.split(args.batch))
        shuffled = torch.randperm(len(batches), generator=g)
        return torch.cat([batches[i] for i in shuffled])

    def lr_at(step, total):
        if step < args.warmup:
            return args.lr * (step + 1) / args.warmup
        frac = min(1.0, (step - args.warmup) / max(1, total - args.warmup))
        return args.lr * (0.05 + 0.95 * 0.5 * (1 + math.cos(math.pi * frac)))

    max_steps = math.ceil(args.epochs * steps_per_epoch)
    if args.max_steps:
        max_steps = min(max_steps, args.max_steps)
    if state["total_steps"] is None and not args.time_budget:
        state["total_steps"] = max_steps
    order = order_for(state["epoch"])
    last_ckpt = last_progress = time.time()
    t_start = time.time() - state["train_seconds"]
    window_loss, window_tokens, window_examples, window_t = 0.0, 0, 0, time.time()
    metrics = open(os.path.join(args.out, "metrics.jsonl"), "a")

    def checkpoint():
        state["train_seconds"] = time.time() - t_start
        save_atomic({"config": model.config, "model": model.state_dict(), "optimizer": opt.state_dict(), "state": state,
                     "rng": torch.get_rng_state(), "args": vars(args), "pack": header}, ckpt_path)

    model.train()
    steps_this_run, run_t0, run_step0 = 0, time.time(), state["step"]
    # Mean wall time of recent steps: a step that would end past the time budget is not started,
    # so the budget holds even when a step is long (a large corpus's vocabulary on a busy CPU)
    # and the schedule fitted at step 31 is never reached.
    step_seconds = None
    while True:
        total = state["total_steps"]
        # The epoch (or --max-steps) limit holds even before a time budget's schedule is fitted.
        if (total is not None and state["step"] >= total) or state["step"] >= max_steps:
            break
        if args.time_budget and state["train_seconds"] + (step_seconds or 0.0) > args.time_budget:
            break
        step_t0 = time.time()
        if state["pos"] >= n:
            state["epoch"] += 1
            state["pos"] = 0
            order = order_for(state["epoch"])
        idx = order[state["pos"]: state["pos"] + args.batch]
        rows = e_all[idx]
        facet = rows[:, 0].to(device)
        query = q_all[rows[:, 1].to(device)]
        if args.condition == "tokens":
            # Drop the batch's trailing all-PAD word columns (positions do not depend on them).
            query = query[:, : max(1, int((query != 0).sum(1).max()))]
        trow = rows[:, 2].to(device)
        tgt = t_all[trow]
        mask = (tgt != 0).float()
        if not args.all_positions:
            mask = mask * d_all[trow]
        # Cut the batch after its last loss position (batches are bucketed by that length).
        last = int(mask.nonzero()[:, 1].max()) + 1 if bool(mask.any()) else 1
        tgt, mask = tgt[:, :last], mask[:, :last]
        hidden = model.hidden(query, facet, tgt[:, :-1])
        # The output layer (the bulk of the compute at this vocabulary size) only where there is a loss.
        sel = mask > 0
        ce = F.cross_entropy(model.logits(hidden[sel]), tgt[sel], reduction="none", label_smoothing=args.label_smoothing)
        ex_w = w_all[idx].to(device)
        pos_w = ex_w[:, None].expand_as(mask)[sel]
        loss = (ce * pos_w).sum() / pos_w.sum()
        if args.unlikelihood > 0:
            neg_rows = rows[:, 3]
            has = neg_rows >= 0
            if bool(has.any()):
                neg = t_all[neg_rows[has].to(device)]
                nl = model(query[has.to(device)], facet[has.to(device)], neg[:, :-1])
                p = torch.softmax(nl, dim=-1).gather(-1, neg[..., None])[..., 0].clamp(max=1 - 1e-6)
                nm = (neg != 0).float()
                loss = loss + args.unlikelihood * ((-torch.log1p(-p)) * nm).sum() / nm.sum()
        if total is not None:
            lr = lr_at(state["step"], total)
        else:
            lr = lr_at(state["step"], max(state["step"] + 1, max_steps))
        for gparam in opt.param_groups:
            gparam["lr"] = lr
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()

        b = len(idx)
        state["step"] += 1
        state["pos"] += b
        state["seen"] += b
        tokens = int(mask.sum())
        window_loss += float(ce.sum())
        window_tokens += tokens
        window_examples += b
        now = time.time()
        state["train_seconds"] = now - t_start
        step_seconds = now - step_t0 if step_seconds is None else 0.8 * step_seconds + 0.2 * (now - step_t0)
        # Fit the schedule to the time budget once throughput is known.
        steps_this_run += 1
        if steps_this_run == 1:
            run_t0, run_step0 = now, state["step"]
        if state["total_steps"] is None and args.time_budget and steps_this_run == 31:
            rate = (state["step"] - run_step0) / max(1e-6, now - run_t0)
            left = max(0.0, args.time_budget - state["train_seconds"])
            state["total_steps"] = min(max_steps, max(state["step"] + 1, state["step"] + int(rate * left)))
        if now - last_progress >= args.progress_every:
            eps = window_examples / (now - window_t)
            total_steps = state["total_steps"] or max_steps
            eta = (total_steps - state["step"]) * args.batch / max(eps, 1e-6)
            record = dict(step=state["step"], seen=state["seen"], epoch=state["seen"] / n, loss=window_loss / max(1, window_tokens),
                          examplesPerSecond=eps, tokensPerSecond=window_tokens / (now - window_t), lr=lr,
                          elapsed=state["train_seconds"], eta=eta, totalSteps=total_steps)
            emit("progress", **record)
            metrics.write(json.dumps(record) + "\n")
            metrics.flush()
            window_loss, window_tokens, window_examples, window_t = 0.0, 0, 0, now
            last_progress = now
        if args.snapshot_every and state["seen"] >= state["next_snapshot"]:
            snap = os.path.join(args.out, "snapshots", f"{state['seen']:010d}")
            os.makedirs(snap, exist_ok=True)
            model.eval()
            export_onnx(model, os.path.join(snap, "decoder.onnx"), check=False)
            model.train()
            emit("snapshot", seen=state["seen"], dir=snap, elapsed=state["train_seconds"])
            state["next_snapshot"] += args.snapshot_every
        if now - last_ckpt >= args.checkpoint_every:
            checkpoint()
            last_ckpt = now
            emit("checkpoint", step=state["step"], seen=state["seen"])

    checkpoint()
    metrics.close()
    model.eval()
    result = {"params": model.parameter_count(), "steps": state["step"], "seen": state["seen"], "epochs": state["seen"] / n,
              "trainSeconds": state["train_seconds"], "config": model.config, "device": str(device)}
    if args.save_weights:
        save_atomic({"config": model.config, "model": {k: v.detach().cpu() for k, v in model.state_dict().items()}}, os.path.join(args.out, "model.pt"))
    if not args.no_export:
        result["export"] = export_onnx(model, os.path.join(args.out, "decoder.onnx"), check=True)
    with open(os.path.join(args.out, "train.json.tmp"), "w") as f:
        json.dump({**result, "args": vars(args)}, f, indent=1)
    os.replace(os.path.join(args.out, "train.json.tmp"), os.path.join(args.out, "train.json"))
    emit("done", **result)


if __name__ == "__main__":
    main()
