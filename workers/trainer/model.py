"""The generative retriever's decoder (PyTorch).

A small pre-LayerNorm transformer decoder that generates a DocID's compact tokens conditioned
on (facet, query item). The query item enters as one prefix position: its frozen sentence
embedding projected to d_model plus a learned facet embedding (measured ~2x faster to train
than feeding the item's tokens, at equal quality per example; see STACK.md). Output
embeddings are tied to the input token embeddings.

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

    def forward(self, x, mask):
        """Training: x [B,T,d], mask [T,T] additive causal mask."""
        h = self.ln1(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        a = self.attend(self.split(q), self.split(k), self.split(v), mask)
        b, _, t, _ = a.shape
        x = x + self.drop(self.out(a.transpose(1, 2).reshape(b, t, -1)))
        return x + self.drop(self.fc2(self.drop(F.gelu(self.fc1(self.ln2(x))))))

    def step(self, x, past_k, past_v):
        """Decoding one position: x [B,1,d]; past_k/v [B,H,P,dh] -> (x, k, v) with P+1."""
        h = self.ln1(x)
        q, k, v = self.qkv(h).chunk(3, dim=-1)
        k = torch.cat([past_k, self.split(k)], dim=2)
        v = torch.cat([past_v, self.split(v)], dim=2)
        a = self.attend(self.split(q), k, v, None)
        b = a.shape[0]
        x = x + self.out(a.transpose(1, 2).reshape(b, 1, -1))
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x)))), k, v


class DocIdDecoder(nn.Module):
    def __init__(self, vocab, dim_in, d=256, layers=4, heads=4, ff=1024, max_len=13, facets=4, dropout=0.1):
        super().__init__()
        self.config = dict(vocab=vocab, dim_in=dim_in, d=d, layers=layers, heads=heads, ff=ff, max_len=max_len, facets=facets, dropout=dropout)
        self.tok = nn.Embedding(vocab, d)
        # max_len + 1 positions: the prefix, then up to max_len - 1 input tokens.
        self.pos = nn.Embedding(max_len + 1, d)
        self.facet = nn.Embedding(facets, d)
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
        """query [B,dim_in], facet [B], tokens [B,T] (the target shifted: its first T tokens)
        -> logits [B,T+1,V]: position 0 predicts the first DocID token."""
        return self.logits(self.hidden(query, facet, tokens))

    def hidden(self, query, facet, tokens):
        """The final hidden states [B,T+1,d], before the output layer (training computes
        logits only where there is a loss)."""
        b, t = tokens.shape
        x = torch.cat([self.prefix(query, facet)[:, None, :], self.tok(tokens)], dim=1)
        x = self.drop(x + self.pos.weight[: t + 1][None])
        mask = torch.full((t + 1, t + 1), float("-inf"), device=x.device).triu(1)
        for blk in self.blocks:
            x = blk(x, mask)
        return x

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
