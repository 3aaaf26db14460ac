#!/usr/bin/env python3
"""Trains a bag-of-words text encoder contrastively: the LSA projection (lib/embed/lsa.ts) as the
starting point, then symmetric in-batch InfoNCE on pairs of texts that should embed close
(train-split citations, optionally title <-> abstract of one paper). Written by lib/embed/contrastive.ts.

  OPENBLAS_NUM_THREADS=2 /usr/bin/python3 workers/trainer/contrastive_encoder.py --pack DIR --init FILE --out DIR [flags]

A text is x P / |x P| with x its L2-normalised log-tf x idf vector (the pack's CSR rows) and P the
vocabulary x dims projection: exactly what LsaEmbedder computes, so the trained P drops into the
same model folder. After every epoch the held-out pairs (citations of a slice of train papers,
never trained on) are scored as retrieval over the pack's pool texts (recall@20); the projection
of the best epoch (epoch 0 = the initial LSA) is the result, so the epoch count is chosen on
held-out training data, never on evaluation gold.

Resumable: a checkpoint (projection, optimiser, history) is written atomically after each epoch;
a rerun with the same OUT and settings continues after the last finished epoch. Data order is a
function of (seed, epoch), so a resumed run trains as an uninterrupted one would. Progress is
printed as JSON lines on stdout ({"event": "progress" | "epoch" | "done", ...}).
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "2")

import argparse
import hashlib
import json
import sys
import time

import numpy as np
import torch
import torch.nn.functional as F

PACK_FORMAT = "graft-contrastive-pack"


def emit(event, **fields):
    print(json.dumps({"event": event, **fields}), flush=True)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--pack", required=True, help="folder written by lib/embed/contrastive.ts")
    p.add_argument("--init", required=True, help="initial projection.f32 (vocabulary x dims, the LSA fit)")
    p.add_argument("--out", required=True)
    p.add_argument("--epochs", type=int, default=5)
    p.add_argument("--tau", type=float, default=0.05)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--cite-repeat", type=int, default=1, help="citation pairs enter each epoch this many times (they are outnumbered by self pairs)")
    p.add_argument("--recall-k", type=int, default=20)
    p.add_argument("--threads", type=int, default=1, help="torch threads (1 is fastest on 2 cores with OpenBLAS at 2)")
    return p.parse_args(argv)


def load_pack(folder):
    with open(os.path.join(folder, "pack.json")) as f:
        h = json.load(f)
    if h.get("format") != PACK_FORMAT:
        raise SystemExit(f"{folder}: not a {PACK_FORMAT}")
    rd = lambda name, dt: np.fromfile(os.path.join(folder, name), dtype=dt)
    pack = {
        "header": h,
        "offsets": rd("offsets.i32", "<i4").astype(np.int64),
        "terms": rd("terms.i32", "<i4").astype(np.int64),
        "weights": rd("weights.f32", "<f4"),
        "pairs": rd("pairs.i32", "<i4").reshape(-1, 2),
        "kinds": rd("kinds.u8", "u1"),
        "val": rd("val.i32", "<i4").reshape(-1, 2),
        "pool": rd("pool.i32", "<i4"),
    }
    if len(pack["offsets"]) != h["numTexts"] + 1 or len(pack["pairs"]) != h["numPairs"] or len(pack["val"]) != h["numVal"]:
        raise SystemExit(f"{folder}: files do not match pack.json (interrupted write?)")
    return pack


class Bags:
    """The pack's texts as EmbeddingBag input: term ids, per-term weights and bag offsets for any subset."""

    def __init__(self, offsets, terms, weights):
        self.offsets, self.terms, self.weights = offsets, terms, weights

    def batch(self, texts):
        starts, ends = self.offsets[texts], self.offsets[texts + 1]
        lengths = ends - starts
        idx = np.concatenate([np.arange(s, e) for s, e in zip(starts, ends)]) if len(texts) else np.zeros(0, np.int64)
        bag = np.zeros(len(texts), np.int64)
        bag[1:] = np.cumsum(lengths)[:-1]
        return torch.from_numpy(self.terms[idx]), torch.from_numpy(bag), torch.from_numpy(self.weights[idx])


def embed(projection, bags, texts):
    ids, offsets, w = bags.batch(texts)
    return F.normalize(F.embedding_bag(ids, projection, offsets, mode="sum", per_sample_weights=w), dim=1)


def info_nce(a, b, ids_a, ids_b, tau):
    """Symmetric in-batch InfoNCE; another pair's copy of the same text is not counted as a negative."""
    logits = a @ b.t() / tau
    same = (ids_b[None, :] == ids_b[:, None]) | (ids_a[None, :] == ids_a[:, None])
    same.fill_diagonal_(False)
    logits = logits.masked_fill(same, float("-inf"))
    target = torch.arange(len(a))
    return (F.cross_entropy(logits, target) + F.cross_entropy(logits.t(), target)) / 2


@torch.no_grad()
def held_out_recall(projection, bags, val, pool, k):
    """Micro recall@k of the held-out citing texts over the pool (the query's own text excluded)."""
    if len(val) == 0:
        return None
    gold = {}
    for q, c in val:
        gold.setdefault(int(q), set()).add(int(c))
    queries = np.array(sorted(gold), dtype=np.int64)
    pv = torch.cat([embed(projection, bags, pool[i : i + 4096]) for i in range(0, len(pool), 4096)])
    qv = embed(projection, bags, queries)
    scores = qv @ pv.t()
    scores[torch.from_numpy(pool)[None, :] == torch.from_numpy(queries)[:, None]] = float("-inf")
    top = torch.topk(scores, min(k, len(pool)), dim=1).indices.numpy()
    hits = sum(len(gold[int(q)] & set(int(pool[j]) for j in row)) for q, row in zip(queries, top))
    return hits / sum(len(g) for g in gold.values())


def best_epoch(history):
    """The epoch with the best held-out recall (the earliest on a tie); the last one without held-out pairs."""
    if history[0]["heldOutRecall"] is None:
        return history[-1]
    return max(history, key=lambda e: (e["heldOutRecall"], -e["epoch"]))


def settings_key(args, header):
    keep = {k: getattr(args, k) for k in ("epochs", "tau", "batch", "lr", "seed", "cite_repeat")}
    return hashlib.sha256(json.dumps({"pack": header["hash"], **keep}, sort_keys=True).encode()).hexdigest()[:16]


def save_atomic(obj, path):
    tmp = path + ".tmp"
    torch.save(obj, tmp)
    os.replace(tmp, path)


def write_f32(array, path):
    tmp = path + ".tmp"
    array.astype("<f4").tofile(tmp)
    os.replace(tmp, path)


def epoch_pairs(pack, args, epoch):
    """This epoch's pair order: a function of (seed, epoch) only, so a resumed run repeats it."""
    pairs, kinds = pack["pairs"], pack["kinds"]
    cite = np.flatnonzero(kinds == 0)
    order = np.concatenate([np.arange(len(pairs))] + [cite] * max(0, args.cite_repeat - 1))
    return pairs[np.random.default_rng([args.seed, epoch]).permutation(order)]


def main(argv=None):
    args = parse_args(argv)
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    pack = load_pack(args.pack)
    h = pack["header"]
    vocab, dims = h["vocabulary"], h["dims"]
    init = np.fromfile(args.init, dtype="<f4")
    if init.size != vocab * dims:
        raise SystemExit(f"{args.init}: {init.size} floats, expected {vocab} x {dims}")
    bags = Bags(pack["offsets"], pack["terms"], pack["weights"])
    key = settings_key(args, h)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    best_path = os.path.join(args.out, "best.f32")

    projection = torch.nn.Parameter(torch.from_numpy(init.reshape(vocab, dims).copy()))
    opt = torch.optim.Adam([projection], lr=args.lr)
    history, start = [], 1
    if os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path)
        if ck.get("key") == key:
            with torch.no_grad():
                projection.copy_(ck["projection"])
            opt.load_state_dict(ck["optimizer"])
            history, start = ck["history"], ck["epoch"] + 1
            emit("resumed", epoch=ck["epoch"])
        else:
            emit("restart", reason="checkpoint from other settings or pack")
    if not history:
        r0 = held_out_recall(projection.detach(), bags, pack["val"], pack["pool"], args.recall_k)
        history.append({"epoch": 0, "loss": None, "heldOutRecall": r0, "seconds": 0.0})
        write_f32(init, best_path)
        emit("epoch", **history[-1])

    for epoch in range(start, args.epochs + 1):
        t0 = time.time()
        pairs = epoch_pairs(pack, args, epoch)
        steps = len(pairs) // args.batch  # a short last batch has too few negatives: dropped
        total, first = 0.0, None
        for s in range(steps):
            b = pairs[s * args.batch : (s + 1) * args.batch]
            a_ids, b_ids = torch.from_numpy(b[:, 0].astype(np.int64)), torch.from_numpy(b[:, 1].astype(np.int64))
            loss = info_nce(embed(projection, bags, b[:, 0]), embed(projection, bags, b[:, 1]), a_ids, b_ids, args.tau)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            if first is None:
                first = loss.item()
            if (s + 1) % 50 == 0:
                emit("progress", epoch=epoch, step=s + 1, steps=steps, loss=total / (s + 1))
        recall = held_out_recall(projection.detach(), bags, pack["val"], pack["pool"], args.recall_k)
        history.append(
            {"epoch": epoch, "loss": total / max(1, steps), "firstBatchLoss": first, "heldOutRecall": recall, "seconds": round(time.time() - t0, 1)}
        )
        if best_epoch(history)["epoch"] == epoch:
            write_f32(projection.detach().numpy(), best_path)
        save_atomic({"key": key, "epoch": epoch, "projection": projection.detach().clone(), "optimizer": opt.state_dict(), "history": history}, ckpt_path)
        emit("epoch", **history[-1])

    best = best_epoch(history)
    result = {"key": key, "bestEpoch": best["epoch"], "history": history, "settings": {k: getattr(args, k) for k in ("epochs", "tau", "batch", "lr", "seed", "cite_repeat")}}
    with open(os.path.join(args.out, "result.json.tmp"), "w") as f:
        json.dump(result, f)
    os.replace(os.path.join(args.out, "result.json.tmp"), os.path.join(args.out, "result.json"))
    emit("done", projection=best_path, **result)


if __name__ == "__main__":
    sys.exit(main())
