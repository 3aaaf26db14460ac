"""Fits the default retriever's second stage (lib/retrieve/rerank.ts) with LightGBM's LambdaMART.

    python3 workers/trainer/rerank.py ROWS.json --out lib/retrieve/rerank-model.json

ROWS.json is written by `npm run train:rerank -- --dump ROWS.json`: for each training query (a
train-split paper queried as an unseen paper) and each tuning query (the tuning half of the unseen
test papers, LLM and offline facets), the fused pool's head as feature rows, the candidates' years
and the gold. Only the training queries are fitted; the tuning queries choose the model size (mean
R@20 over both facet sources). Candidates published after a training query cannot be its references:
for an old query they are half the pool, easy negatives that a new query does not have, so they are
left out of the fit. The trees are written as flat arrays that lib/retrieve/rerank.ts scores in Node.

Needs `pip install lightgbm numpy` (training only; serving reads the JSON).
"""

import argparse
import json

import lightgbm as lgb
import numpy as np

# (head depth, leaves, rounds): small enough that 1,185 training queries do not over-fit it.
GRID = [(100, 15, 300), (150, 15, 300), (200, 15, 300), (200, 7, 300)]


def training_set(queries, depth):
    x, y, groups = [], [], []
    for q in queries:
        keep = [i for i in range(min(depth, len(q["papers"]))) if q["years"][i] <= q["year"]]
        labels = [1 if q["papers"][i] in q["gold"] else 0 for i in keep]
        if not any(labels):
            continue
        x += [q["rows"][i] for i in keep]
        y += labels
        groups.append(len(keep))
    return np.array(x, dtype=np.float64), np.array(y), groups


def recall_at_20(queries, booster, depth):
    """Micro R@20 of the pool with its first `depth` re-ordered (ties keep the fused order)."""
    hit = gold = 0
    for q in queries:
        gold += q["goldCount"]
        papers = q["papers"]
        if not papers:
            continue
        head = min(depth, len(papers))
        z = booster.predict(np.array(q["rows"][:head], dtype=np.float64)) if booster else -np.arange(head)
        order = [papers[i] for i in sorted(range(head), key=lambda i: (-z[i], i))] + papers[head:]
        hit += len(set(order[:20]) & set(q["gold"]))
    return hit / max(1, gold)


def flat_tree(tree):
    """LightGBM's nested tree as arrays: internal nodes in visit order, leaves as ~index."""
    out = {"feature": [], "threshold": [], "left": [], "right": [], "leaf": []}

    def visit(node):
        if "leaf_index" in node or "split_index" not in node:
            out["leaf"].append(node["leaf_value"])
            return ~(len(out["leaf"]) - 1)
        if node["decision_type"] != "<=":
            raise ValueError(f"unexpected decision type {node['decision_type']}")
        i = len(out["feature"])
        out["feature"].append(node["split_feature"])
        out["threshold"].append(node["threshold"])
        out["left"].append(0)
        out["right"].append(0)
        out["left"][i] = visit(node["left_child"])
        out["right"][i] = visit(node["right_child"])
        return i

    visit(tree["tree_structure"])
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("rows")
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    data = json.load(open(args.rows))
    train, tune = data["train"], data["tune"]
    print(f"fused order R@20: train {recall_at_20(train, None, 0):.4f}  tune llm {recall_at_20(tune['llm'], None, 0):.4f}  offline {recall_at_20(tune['offline'], None, 0):.4f}")
    best = None
    for depth, leaves, rounds in GRID:
        x, y, groups = training_set(train, depth)
        params = dict(
            objective="lambdarank",
            learning_rate=0.05,
            num_leaves=leaves,
            min_data_in_leaf=50,
            bagging_fraction=0.8,
            bagging_freq=1,
            feature_fraction=0.8,
            lambdarank_truncation_level=30,
            num_threads=2,
            deterministic=True,
            seed=args.seed,
            verbose=-1,
        )
        booster = lgb.train(params, lgb.Dataset(x, y, group=groups), num_boost_round=rounds)
        r = {k: recall_at_20(tune[k], booster, depth) for k in ("llm", "offline")}
        print(f"depth {depth} leaves {leaves} rounds {rounds}: R@20 train {recall_at_20(train, booster, depth):.4f}  tune llm {r['llm']:.4f}  offline {r['offline']:.4f}", flush=True)
        score = (r["llm"] + r["offline"]) / 2
        if best is None or score > best[0]:
            best = (score, depth, leaves, rounds, booster)
    _, depth, leaves, rounds, booster = best
    model = {
        "features": data["features"],
        "depth": depth,
        "trained": f"LightGBM {lgb.__version__} lambdarank, {leaves} leaves, {rounds} rounds, learning rate 0.05, on {len(train)} train-split papers",
        "trees": [flat_tree(t) for t in booster.dump_model()["tree_info"]],
    }
    with open(args.out, "w") as f:
        json.dump(model, f, separators=(",", ":"))
        f.write("\n")
    print(f"chosen depth {depth}, {leaves} leaves, {rounds} rounds; wrote {args.out}")


if __name__ == "__main__":
    main()
