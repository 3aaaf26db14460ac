"""The generative retriever's decoder (PyTorch).

A small pre-LayerNorm transformer decoder that generates a DocID's compact tokens conditioned
on (facet, query item). Two ways for the query item to enter (config `condition`):

- "vector" (the default; what models/genret-acl-citegraph is): one prefix position, the item's
  frozen sentence embedding projected to d_model plus a learned facet embedding (measured ~2x
  faster to train than feeding the item's tokens on CPU; see STACK.md).
- "tokens" (issue 31): a prefix LM. The prefix is a facet slot then the item's own compact
  tokens (lib/genret/item-tokens.ts; embeddings tied with the output layer, so a query term and
  the same DocID token share one vector), attended bidirectionally; the DocID tokens after it
  are causal. Chosen over an encoder + cross-attention because it is the same stack with the
  same KV cache: the prefix's keys and values are simply the first cache entries, so the export
  is one prefill graph plus the existing step graph with a key mask, and no second cache of
  cross-attention keys per layer.

  Positions: the facet slot 0, word j at 1 + j, DocID input k at item_tokens + 1 + k, so they
  do not depend on the item's length and a batch may drop its trailing PAD word columns. The
  facet slot's final state predicts the first DocID token (as the vector prefix does).

Output embeddings are tied to the input token embeddings.

Attention is written out by hand (no nn.MultiheadAttention) so the ONNX export with a KV
cache is a plain graph: Gather (beam reorder) + MatMul + Softmax.
"""
import math

import torch
from torch import nn
import torch.nn.functional as F


class Block(nn.Module):
    def __init__(self, d, heads, ff, dropout):
        super().__init__()
        self.heads = heads
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc1 = nn.Linear(d, ff)
        self.fc2 = nn.Linear(ff, d)
        self.drop = nn.Dropout(dropout)

    def split(self, x):
        b, t, d = x.shape
        return x.view(b, t, self.heads, d // self.heads).transpose(1, 2)  # [B,H,T,dh]

    def attend(self, q, k, v, mask):
        scores = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = scores + mask
        return torch.softmax(scores, dim=-1) @ v

    def forward(self, x, mask, with_kv=False):
        """Training: x [B,T,d], mask [T,T] (or [B,1,T,T]) additive mask. with_kv: also the
        keys and values [B,H,T,dh] (the prefill of a KV cache)."""
        h = self.ln1(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        k, v = self.split(k), self.split(v)
        a = self.attend(self.split(q), k, v, mask)
        b, _, t, _ = a.shape
        x = x + self.drop(self.out(a.transpose(1, 2).reshape(b, t, -1)))
        x = x + self.drop(self.fc2(self.drop(F.gelu(self.fc1(self.ln2(x))))))
        return (x, k, v) if with_kv else x

    def step(self, x, past_k, past_v, mask=None):
        """Decoding one position: x [B,1,d]; past_k/v [B,H,P,dh]; mask None or [B,1,1,P+1]
        additive -> (x, k, v) with P+1."""
        h = self.ln1(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        k = torch.cat([past_k, self.split(k)], dim=2)
        v = torch.cat([past_v, self.split(v)], dim=2)
        a = self.attend(self.split(q), k, v, mask)
        b = a.shape[0]
        x = x + self.out(a.transpose(1, 2).reshape(b, 1, -1))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)))), k, v


PAD = 0


class DocIdDecoder(nn.Module):
    def __init__(self, vocab, dim_in, d=256, layers=4, heads=4, ff=1024, max_len=13, facets=4, dropout=0.1, condition="vector", item_tokens=0):
        super().__init__()
        if condition not in ("vector", "tokens"):
            raise ValueError(f"condition: vector or tokens, not {condition}")
        if condition == "tokens" and item_tokens < 1:
            raise ValueError("condition tokens needs item_tokens >= 1")
        self.config = dict(vocab=vocab, dim_in=dim_in, d=d, layers=layers, heads=heads, ff=ff, max_len=max_len, facets=facets, dropout=dropout)
        if condition == "tokens":
            # Only then: a vector model's config (and checkpoint check) stays what it was.
            self.config.update(condition=condition, item_tokens=item_tokens)
        self.condition = condition
        self.item_tokens = item_tokens if condition == "tokens" else 0
        self.tok = nn.Embedding(vocab, d)
        # The prefix (vector: 1 position; tokens: the facet slot and item_tokens words), then up
        # to max_len - 1 input tokens.
        self.pos = nn.Embedding(max_len + 1 + self.item_tokens, d)
        self.facet = nn.Embedding(facets, d)
        if condition == "vector":
            self.proj = nn.Linear(dim_in, d)
        self.blocks = nn.ModuleList([Block(d, heads, ff, dropout) for _ in range(layers)])
        self.ln = nn.LayerNorm(d)
        self.bias = nn.Parameter(torch.zeros(vocab))
        self.drop = nn.Dropout(dropout)
        nn.init.normal_(self.tok.weight, std=0.02)
        nn.init.normal_(self.pos.weight, std=0.02)
        nn.init.normal_(self.facet.weight, std=0.02)

    @torch.no_grad()
    def init_token_prior(self, prior):
        """Token embeddings and the query projection from one shared basis (lib/genret/token-prior.ts).

        prior: [vocab, dim_in] tensor, one L2-normalised sentence-embedding vector per token (zero
        rows: no prior). The top-d principal directions of the prior rows map both a token's prior
        and a query item into d dimensions, so the tied output layer starts out scoring tokens by
        their identifiers' similarity to the query. Scaled to the usual 0.02 init std.
        Returns the number of tokens initialised from the prior.
        """
        d = self.config["d"]
        rows = prior.norm(dim=1) > 0
        mu = prior[rows].mean(0)
        _, _, basis = torch.pca_lowrank(prior[rows] - mu, q=min(d, int(rows.sum()), prior.shape[1]), center=False)  # [dim_in, q]
        z = (prior[rows] - mu) @ basis
        scale = 0.02 / float(z.std())
        q = basis.shape[1]
        self.tok.weight[rows, :q] = z * scale
        if q < d:
            self.tok.weight[rows, q:] = 0
        if self.condition == "tokens":
            return int(rows.sum())
        self.proj.weight.zero_()
        self.proj.weight[:q] = basis.T * scale
        self.proj.bias.zero_()
        self.proj.bias[:q] = -(mu @ basis) * scale
        return int(rows.sum())

    def prefix(self, query, facet):
        return self.proj(query) + self.facet(facet)

    def logits(self, h):
        # F.linear exports as Gemm(transB=1): no transposed copy of the tied weights in the ONNX file.
        return F.linear(self.ln(h), self.tok.weight, self.bias)

    def forward(self, query, facet, tokens):
        """query [B,dim_in] (vector) or [B,W] item tokens, W <= item_tokens (tokens), facet [B],
        tokens [B,T] (the target shifted: its first T tokens) -> logits [B,T+1,V]: position 0
        predicts the first DocID token."""
        return self.logits(self.hidden(query, facet, tokens))

    def hidden(self, query, facet, tokens):
        """The final hidden states [B,T+1,d], before the output layer (training computes
        logits only where there is a loss)."""
        if self.condition == "tokens":
            return self.hidden_tokens(query, facet, tokens)
        b, t = tokens.shape
        x = torch.cat([self.prefix(query, facet)[:, None, :], self.tok(tokens)], dim=1)
        x = self.drop(x + self.pos.weight[: t + 1][None])
        mask = torch.full((t + 1, t + 1), float("-inf"), device=x.device).triu(1)
        for blk in self.blocks:
            x = blk(x, mask)
        return x

    def prefix_positions(self, words):
        """Position ids of the facet slot and `words` item tokens."""
        return torch.arange(words + 1, device=self.pos.weight.device)

    def prefix_mask(self, words):
        """[B,1,1,1+W] additive key mask of the prefix: PAD words masked, the facet slot never
        (so no query row is ever left without a key)."""
        pad = torch.cat([torch.zeros_like(words[:, :1], dtype=torch.bool), words == PAD], dim=1)
        return torch.zeros(pad.shape, device=words.device).masked_fill(pad, float("-inf"))[:, None, None, :]

    def prefill(self, words, facet, with_kv=False):
        """The prefix [facet slot, words] through the stack: (states [B,1+W,d], per-layer (k, v))."""
        x = torch.cat([self.facet(facet)[:, None, :], self.tok(words)], dim=1)
        x = self.drop(x + self.pos(self.prefix_positions(words.shape[1]))[None])
        mask = self.prefix_mask(words)
        kv = []
        for blk in self.blocks:
            if with_kv:
                x, k, v = blk(x, mask, with_kv=True)
                kv.append((k, v))
            else:
                x = blk(x, mask)
        return x, kv

    def hidden_tokens(self, words, facet, tokens):
        """Prefix LM: words [B,W] bidirectional with the facet slot, tokens [B,T] causal after them."""
        b, t = tokens.shape
        w = words.shape[1]
        p = 1 + w
        x = torch.cat([self.facet(facet)[:, None, :], self.tok(words), self.tok(tokens)], dim=1)
        positions = torch.cat([self.prefix_positions(w), self.item_tokens + 1 + torch.arange(t, device=x.device)])
        x = self.drop(x + self.pos(positions)[None])
        # Every row sees the prefix keys (less PAD words); a DocID row also sees DocID keys up to itself.
        causal = torch.full((p + t, t), float("-inf"), device=x.device).triu(1 - p)
        mask = torch.cat([self.prefix_mask(words).expand(b, 1, p + t, p), causal[None, None].expand(b, 1, p + t, t)], dim=3)
        for blk in self.blocks:
            x = blk(x, mask)
        # The facet slot predicts the first DocID token, DocID input k the token after it.
        return torch.cat([x[:, :1], x[:, p:]], dim=1)

    def parameter_count(self):
        return sum(p.numel() for p in self.parameters())


class DecodeStep(nn.Module):
    """One decoding step with a KV cache and in-graph beam reorder, for the ONNX export.

    Inputs: query [B,dim_in] f32, facet [B] i64, token_emb [B,d] f32 (the input token's
    embedding row, gathered by the caller from output.f32), past [L,2,B0,H,P,dh] f32, beam [B]
    i64 (the row of `past` each new row continues), is_prefix [1] f32 (1 on the first step:
    the input is the prefix and past is empty). Outputs: hidden [B,d] (after the final
    LayerNorm) and present [L,2,B,H,P+1,dh].

    The output layer is left to the caller: constrained decoding renormalises over the few
    tokens the trie allows, and logit[t] - logsumexp(allowed logits) equals the renormalised
    log-softmax, so computing those few dot products replaces a [B, V] matrix product and
    softmax per step. The tied embedding table ships once (output.f32), not in the graph.
    """

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, query, facet, token_emb, past, beam, is_prefix):
        m = self.m
        past = past.index_select(2, beam)
        p = past.shape[4]
        x = is_prefix * m.prefix(query, facet) + (1.0 - is_prefix) * token_emb
        x = (x + m.pos.weight[p])[:, None, :]
        presents = []
        for i, blk in enumerate(m.blocks):
            x, k, v = blk.step(x, past[i, 0], past[i, 1])
            presents.append(torch.stack([k, v], dim=0))
        return m.ln(x[:, 0, :]), torch.stack(presents, dim=0)


class PrefillStep(nn.Module):
    """The prefix of a `tokens` model, for the ONNX export: facet [B] i64, words [B,W] i64 (PAD
    0 after the item's tokens) -> hidden [B,d] (the facet slot after the final LayerNorm: it
    scores the first DocID token) and present [L,2,B,H,1+W,dh], the KV cache TokenStep continues."""

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, facet, words):
        x, kv = self.m.prefill(words, facet, with_kv=True)
        present = torch.stack([torch.stack([k, v], dim=0) for k, v in kv], dim=0)
        return self.m.ln(x[:, 0, :]), present


class TokenStep(nn.Module):
    """One decoding step of a `tokens` model with a KV cache and in-graph beam reorder.

    Inputs: token_emb [B,d] f32 (the input token's row of output.f32), past [L,2,B0,H,P,dh]
    f32, beam [B] i64 (the row of `past` each new row continues), key_mask [B,P+1] f32 (additive
    over the keys after this step: large negative at the prefix's PAD words, 0 elsewhere; the
    caller keeps it per row, already in the new rows' order), step [1] i64 (0 for the first
    DocID token fed back). Outputs: hidden [B,d] and present [L,2,B,H,P+1,dh], as DecodeStep.
    """

    def __init__(self, model):
        super().__init__()
        self.m = model

    def forward(self, token_emb, past, beam, key_mask, step):
        m = self.m
        past = past.index_select(2, beam)
        x = (token_emb + m.pos(step + (m.item_tokens + 1)))[:, None, :]
        mask = key_mask[:, None, None, :]
        presents = []
        for i, blk in enumerate(m.blocks):
            x, k, v = blk.step(x, past[i, 0], past[i, 1], mask)
            presents.append(torch.stack([k, v], dim=0))
        return m.ln(x[:, 0, :]), torch.stack(presents, dim=0)
