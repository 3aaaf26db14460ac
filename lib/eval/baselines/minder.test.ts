import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import { repoRoot } from "@/lib/paths";
import { mulberry32 } from "@/lib/random";
import { runTrainer } from "@/lib/python-trainer";
import {
  type DecodeRequest,
  type DecoderSession,
  type DistillationExamples,
  buildDocIdIndex,
  normalizeFacetItem,
  loadTrie,
  readTrieFile,
  serializeTrie,
  compactIndex,
  EOS,
  PAD,
} from "@/lib/genret";
import { createGenerativeProvider } from "./generative-provider";
import {
  abstractIdf,
  bestSubstring,
  buildMinderIdentifiers,
  buildSubstringTrie,
  loadMinderModel,
  MINDER_MARKER,
  MINDER_TRIE_FILES,
  MINDER_VIEWS,
  minderExamples,
  minderIdentifierFiles,
  minderViewLists,
  missingMinderModelFiles,
  writeMinderPack,
  type MinderPackHeader,
  type MinderPaper,
} from "./minder";
import { decodeTokens, encodeDocIdTokens } from "@/lib/text";

/** Every distinct n-gram of min..max tokens of the texts, with the texts containing it. */
function bruteNgrams(texts: number[][], min: number, max: number): Map<string, number[]> {
  const out = new Map<string, number[]>();
  texts.forEach((t, i) => {
    for (let s = 0; s < t.length; s++) {
      for (let n = min; n <= max && s + n <= t.length; n++) {
        const key = t.slice(s, s + n).join(",");
        const list = out.get(key) ?? out.set(key, []).get(key)!;
        if (list.at(-1) !== i) list.push(i);
      }
    }
  });
  return out;
}

describe("buildSubstringTrie", () => {
  // A repeated n-gram inside one text ([3,4,5] in text 0), one shared across texts ([3,4,5]
  // in 0 and 1), a text too short for any n-gram (text 2), a text of exactly min tokens.
  const texts = [
    [2, 3, 4, 5, 6, 3, 4, 5],
    [9, 3, 4, 5],
    [2, 3],
    [7, 8, 9],
  ];

  it("ends an identifier at every node of depth >= min, and only there, with the papers containing each n-gram", () => {
    const trie = buildSubstringTrie(texts, 3, 4);
    const expected = bruteNgrams(texts, 3, 4);
    assert.equal(trie.identifierCount, expected.size);
    for (const [key, papers] of expected) {
      const id = trie.lookup(key.split(",").map(Number));
      assert.ok(id >= 0, `${key} is an identifier`);
      assert.deepEqual([...trie.papersOf(id)], papers, `postings of ${key}`);
    }
    assert.deepEqual([...trie.papersOf(trie.lookup([3, 4, 5]))], [0, 1], "a repeat within a text is posted once");
    // Shorter than min: a path but not an identifier; longer than max: not in the trie.
    assert.ok(trie.walk([3, 4]) > 0);
    assert.equal(trie.lookup([3, 4]), -1);
    assert.equal(trie.walk([2, 3, 4, 5, 6]), -1);
    assert.equal(trie.lookup([2, 3]), -1, "text 2 is shorter than min and adds nothing");
    assert.deepEqual([...trie.papersOf(trie.lookup([7, 8, 9]))], [3]);
    // Exactly one node per distinct n-gram of length 1..max that is a prefix of some window.
    assert.equal(trie.maxDepth, 4);
  });

  it("survives serialisation with its structural checks", () => {
    const trie = buildSubstringTrie(texts);
    const back = loadTrie(serializeTrie(trie));
    assert.equal(back.identifierCount, bruteNgrams(texts, 3, 8).size);
    assert.deepEqual([...back.papersOf(back.lookup([2, 3, 4, 5, 6, 3, 4, 5]))], [0]);
  });

  it("is empty (but valid) when no text has an n-gram", () => {
    const trie = buildSubstringTrie([[2, 3], []]);
    assert.equal(trie.identifierCount, 0);
    assert.equal(loadTrie(serializeTrie(trie)).nodeCount, 1);
  });
});

describe("bestSubstring", () => {
  const idf = (weights: Record<number, number>): Float64Array => {
    const out = new Float64Array(32).fill(1);
    for (const [t, w] of Object.entries(weights)) out[Number(t)] = w;
    return out;
  };

  it("takes the 8-token window with the most item overlap, ties to the earliest", () => {
    const abstract = [5, 6, 7, 8, 9, 5, 10, 11, 12, 13, 14];
    // Windows 2 and 3 both hold 9, 12 and 13.
    assert.deepEqual(bestSubstring(abstract, [9, 12, 13], idf({})), { start: 2, length: 8 });
  });

  it("counts a token once per window, so repetition does not pick the window", () => {
    const abstract = [4, 4, 4, 4, 4, 4, 4, 4, 9, 9, 3, 2, 4];
    assert.deepEqual(bestSubstring(abstract, [4, 3, 2], idf({})), { start: 4, length: 8 });
  });

  it("weights overlap by IDF, so a rare shared token beats a common one", () => {
    const abstract = [2, 9, 9, 9, 9, 9, 9, 9, 9, 7, 9, 9];
    assert.deepEqual(bestSubstring(abstract, [2, 7], idf({ 2: 0.01, 7: 3 })), { start: 2, length: 8 });
  });

  it("uses the whole abstract when shorter than 8 tokens and gives nothing below 3", () => {
    assert.deepEqual(bestSubstring([5, 6, 7, 8, 9], [1], idf({})), { start: 0, length: 5 });
    assert.equal(bestSubstring([5, 6], [5], idf({})), null);
  });

  it("abstractIdf is ln(N / document frequency)", () => {
    const v = abstractIdf(
      [
        [2, 3, 3],
        [3, 4],
      ],
      6,
    );
    assert.ok(Math.abs(v[2] - Math.log(2)) < 1e-12);
    assert.equal(v[3], 0);
    assert.equal(v[5], 0, "a token in no abstract");
  });
});

// A hand-made corpus: a phrase shared by two abstracts, an item shared by two papers under
// different facets, an abstract too short for any n-gram.
const papers: MinderPaper[] = [
  {
    title: "Neural Machine Translation of Rare Words",
    abstract: "We study neural machine translation of rare words with subword units. Subword units help a lot.",
    facets: { problems: ["Rare words in translation."], methods: ["Subword units."], contributions: ["A shared idea"] },
  },
  {
    title: "Parsing with Graphs",
    abstract: "A graph parser for dependency parsing. We reuse neural machine translation ideas.",
    facets: { problems: ["Dependency parsing accuracy."], methods: ["A shared idea"], results: ["Better parsing."] },
  },
  {
    title: "Sentiment Lexicons",
    abstract: "Short.",
    facets: { results: ["Lexicons help sentiment analysis."] },
  },
];
const index = buildDocIdIndex(papers.map((p, i) => ({ externalId: `p${i}`, facets: p.facets })));
const ids = buildMinderIdentifiers(papers, index);
const compact = compactIndex(ids.vocab);
const toCompact = (text: string): number[] => encodeDocIdTokens(normalizeFacetItem(text)).map((t) => compact.get(t) as number);
/** Compact tokens of text as it occurs inside an abstract (no normalisation: keeps the leading space). */
const rawCompact = (text: string): number[] => encodeDocIdTokens(text).map((t) => compact.get(t) as number);
const spell = (tokens: ArrayLike<number>): string => decodeTokens(Array.from(tokens, (c) => ids.vocab.llamaIds[c]));

describe("buildMinderIdentifiers", () => {
  it("gives each paper its normalised title as one identifier", () => {
    const title = ids.tries.title;
    assert.equal(title.identifierCount, 3);
    papers.forEach((p, i) => {
      const id = title.lookup(toCompact(p.title));
      assert.equal(id, ids.titleOf[i]);
      assert.deepEqual([...title.papersOf(id)], [i]);
      assert.equal(spell(ids.titleTokens[id]), normalizeFacetItem(p.title), "titles here are under 12 tokens");
    });
  });

  it("posts a substring to every paper whose abstract contains it, and none below 3 tokens", () => {
    const sub = ids.tries.substring;
    const phrase = rawCompact(" neural machine translation");
    assert.equal(phrase.length, 3);
    assert.deepEqual([...sub.papersOf(sub.lookup(phrase))], [0, 1]);
    assert.equal(sub.lookup(phrase.slice(0, 2)), -1);
    assert.equal(ids.abstracts[2].length, 0, "a one-word abstract has no n-gram");
    for (const p of sub.postings as Int32Array) assert.notEqual(p, 2);
  });

  it("merges the four facets' items into one untyped pseudo-query trie", () => {
    const pseudo = ids.tries["pseudo-query"];
    const shared = pseudo.lookup(toCompact("A shared idea"));
    assert.deepEqual([...pseudo.papersOf(shared)], [0, 1], "listed under contributions by paper 0 and methods by paper 1");
    const docIds = FACETS.reduce((s, f) => s + index.facets[f].identifiers.length, 0);
    assert.equal(pseudo.identifierCount, docIds - 1);
    for (const f of FACETS) {
      index.facets[f].identifiers.forEach((llama, id) =>
        assert.deepEqual(
          ids.pseudoTokens[ids.pseudoOf[f][id]],
          llama.map((t) => compact.get(t)),
        ),
      );
    }
  });

  it("has one compact vocabulary covering every view's tokens", () => {
    for (const v of MINDER_VIEWS) {
      for (const t of ids.tries[v].tokens.subarray(1)) assert.ok(t >= 2 && t < ids.vocab.size, `${v} token ${t}`);
    }
    // Abstract-only tokens are in it too.
    assert.ok(rawCompact(" subword").every((c) => c >= 2));
  });
});

/** Hand-made distillation pairs: (facet, source paper, source item) -> (target paper, target facet DocID). */
function pairsOf(rows: [Facet, number, number, number, Facet, number][]): DistillationExamples {
  const n = rows.length;
  return {
    length: n,
    facet: Uint8Array.from(rows, (r) => FACETS.indexOf(r[0])),
    origin: new Uint8Array(n),
    sourcePaper: Int32Array.from(rows, (r) => r[1]),
    sourceItem: Int32Array.from(rows, (r) => r[2]),
    targetPaper: Int32Array.from(rows, (r) => r[3]),
    // The pair targets an item of the target paper in the source's facet (as distill.ts samples).
    targetIdentifier: Int32Array.from(rows, (r) => index.facets[r[4]].itemIdentifiers[r[3]][r[5]]),
    weight: new Float32Array(n).fill(1),
    negative: new Int32Array(n).fill(-1),
    meta: { numPapers: 3, identifierCounts: { problems: 3, methods: 2, results: 2, contributions: 1 }, kMin: 3, seed: 7, options: {} },
  };
}

describe("minderExamples", () => {
  // Paper 1's problem "Dependency parsing accuracy." -> paper 0 (its problem); paper 0's method
  // "Subword units." -> paper 1 (its method "A shared idea"); paper 0 -> paper 2 (results).
  const pairs = pairsOf([
    ["problems", 1, 0, 0, "problems", 0],
    ["methods", 0, 0, 1, "methods", 0],
    ["results", 1, 0, 2, "results", 0],
  ]);
  const ex = minderExamples(ids, papers, pairs);

  it("emits one example per view for each pair, the source item as query, slot = view", () => {
    assert.equal(ex.length, 3 + 3 + 2, "paper 2 has no substring");
    assert.deepEqual(Array.from(ex.slot), [0, 1, 2, 0, 1, 2, 0, 2]);
    assert.deepEqual(Array.from(ex.sourcePaper), [1, 1, 1, 0, 0, 0, 1, 1]);
    assert.deepEqual(Array.from(ex.sourceFacet), [0, 0, 0, 1, 1, 1, 2, 2]);
    assert.deepEqual(Array.from(ex.targetPaper), [0, 0, 0, 1, 1, 1, 2, 2]);
    assert.equal(ex.skipped.substring, 1);
    assert.equal(ex.seed, 7);
  });

  it("targets the neighbour's title and the very item the pair targets", () => {
    assert.equal(ex.targetIdentifier[0], ids.titleOf[0]);
    assert.equal(ex.targetIdentifier[6], ids.titleOf[2]);
    assert.equal(spell(ids.pseudoTokens[ex.targetIdentifier[5]]), "a shared idea");
    assert.equal(spell(ids.pseudoTokens[ex.targetIdentifier[2]]), "rare words in translation.");
    assert.deepEqual([...ex.targets["pseudo-query"].keys()], [ex.targetIdentifier[2], ex.targetIdentifier[5], ex.targetIdentifier[7]]);
  });

  it("targets the neighbour's 8-token n-gram that overlaps the source item most", () => {
    const idf = abstractIdf(ids.abstracts, ids.vocab.size);
    // Brute force: summed IDF of the distinct window tokens found in the item, earliest best.
    const expected = (abstract: Int32Array, item: string): number[] => {
      const inItem = new Set(toCompact(item));
      let best: number[] = [];
      let bestScore = -1;
      for (let s = 0; s + 8 <= abstract.length; s++) {
        const w = Array.from(abstract.subarray(s, s + 8));
        const score = [...new Set(w)].filter((t) => inItem.has(t)).reduce((a, t) => a + idf[t], 0);
        if (score > bestScore) [best, bestScore] = [w, score];
      }
      return best;
    };
    const first = ex.targets.substring.get(ex.targetIdentifier[1]) as ArrayLike<number>;
    assert.deepEqual(Array.from(first), expected(ids.abstracts[0], "Dependency parsing accuracy."));
    const second = ex.targets.substring.get(ex.targetIdentifier[4]) as ArrayLike<number>;
    assert.deepEqual(Array.from(second), expected(ids.abstracts[1], "Subword units."));
    assert.deepEqual([...ids.tries.substring.papersOf(ex.targetIdentifier[4])], [1]);
    // Against paper 0's abstract the same item lands on its words.
    const span = bestSubstring(ids.abstracts[0], toCompact("Subword units."), idf);
    assert.ok(span);
    assert.ok(spell(ids.abstracts[0].subarray(span.start, span.start + span.length)).includes(" subword units"));
  });

  it("writes a pack the trainer reads: rows, targets, decisions", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-minder-pack-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const dim = 4;
    const items = Object.fromEntries(
      FACETS.map((f) => {
        const counts = papers.map((p) => p.facets[f]?.length ?? 0);
        const offsets = Int32Array.from([0, ...counts.map((_, i) => counts.slice(0, i + 1).reduce((a, b) => a + b, 0))]);
        return [f, { dim, offsets, data: Float32Array.from({ length: offsets[3] * dim }, (_, k) => k) }];
      }),
    ) as Record<Facet, { dim: number; offsets: Int32Array; data: Float32Array }>;
    const header = writeMinderPack(dir, { ids, items, examples: ex, embedder: "toy", sourceVariant: "uniform" });
    const json = JSON.parse(readFileSync(path.join(dir, "pack.json"), "utf8")) as MinderPackHeader;
    assert.deepEqual(json, header);
    assert.deepEqual(json.facets, [...MINDER_VIEWS]);
    assert.equal(json.numExamples, 8);
    assert.equal(json.numQueries, 7);
    assert.equal(json.numTargets, 3 + 2 + 3);
    const i32 = (name: string): Int32Array => {
      const b = readFileSync(path.join(dir, name));
      return new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
    };
    const rows = i32("examples.i32");
    const targets = i32("targets.i32");
    const decisions = readFileSync(path.join(dir, "decisions.u8"));
    const L = json.maxLen;
    assert.equal(L, 13);
    for (let r = 0; r < ex.length; r++) {
      const [slot, q, t, neg] = rows.subarray(4 * r, 4 * r + 4);
      assert.equal(slot, ex.slot[r]);
      assert.equal(neg, -1);
      const f = FACETS[ex.sourceFacet[r]];
      assert.equal(q, json.queryOffset[f] + items[f].offsets[ex.sourcePaper[r]] + ex.sourceItem[r]);
      const view = MINDER_VIEWS[slot];
      assert.ok(t >= json.targetOffset[view]);
      const row: number[] = Array.from(targets.subarray(t * L, (t + 1) * L));
      const end = row.indexOf(EOS);
      assert.equal(ids.tries[view].lookup(row.slice(0, end)), ex.targetIdentifier[r], `row ${r} spells its identifier`);
      assert.ok(row.slice(end + 1).every((x) => x === PAD));
      if (view === "substring") {
        // Past 3 tokens EOS competes with the next token; at the 8-token leaf EOS is forced.
        assert.equal(decisions[t * L + 3], 1);
        assert.equal(decisions[t * L + 8], 0);
      }
      if (view === "title") assert.equal(decisions[t * L], 1, "three titles: the first token is a choice");
    }
  });
});

/**
 * A hand-built decoder: the logit of a token depends only on the request's slot (view), so
 * each view is steered to one paper's identifier. Rows follow the search's parents.
 */
class SlotSession implements DecoderSession {
  private slots: number[] = [];
  constructor(private readonly prefer: (slot: number, token: number) => number) {}
  async start(requests: readonly DecodeRequest[]): Promise<void> {
    this.slots = requests.map((r) => r.facet);
  }
  async next(parents: Int32Array): Promise<void> {
    this.slots = Array.from(parents, (p) => this.slots[p]);
  }
  logits(row: number, tokens: ArrayLike<number>, out: Float64Array): void {
    for (let i = 0; i < tokens.length; i++) out[i] = this.prefer(this.slots[row], tokens[i]);
  }
}

describe("minderViewLists", () => {
  const liked = [new Set(toCompact(papers[2].title)), new Set(rawCompact(" neural machine translation")), new Set(toCompact("Subword units."))];
  const decoder = { open: () => new SlotSession((slot, token) => (liked[slot].has(token) ? 6 : token === EOS ? 0 : -2)) };
  const vec = new Float32Array(4);
  const query = { items: { problems: [vec], results: [vec, vec] } };

  it("decodes every item once per view with the view's trie, lists concatenated in item order", async () => {
    const views = await minderViewLists({ tries: ids.tries, maxTokens: ids.maxTokens, decoder }, query, { beams: 4 });
    assert.deepEqual(Object.keys(views), [...MINDER_VIEWS]);
    for (const v of MINDER_VIEWS) {
      const list = views[v];
      assert.ok(list.length > 0, `${v} has candidates`);
      assert.deepEqual([...new Set(list.map((c) => c.queryItem))], [0, 1, 2], `${v}: items 0, 1, 2 in order`);
      for (const c of list) {
        assert.ok([...ids.tries[v].papersOf(c.docId as number)].includes(c.paper), `${v}: paper ${c.paper} is behind identifier ${c.docId}`);
        assert.ok((c.score as number) <= 0);
      }
    }
    assert.equal(views.title[0].paper, 2, "the title view finds the title the model prefers");
    assert.equal(views["pseudo-query"][0].paper, 0);
    assert.deepEqual(new Set(views.substring.filter((c) => c.queryItem === 0 && c.score === views.substring[0].score).map((c) => c.paper)), new Set([0, 1]));
  });

  it("leaves the query paper out of every view", async () => {
    const views = await minderViewLists({ tries: ids.tries, maxTokens: ids.maxTokens, decoder }, { ...query, exclude: 0 }, { beams: 4 });
    for (const v of MINDER_VIEWS)
      assert.ok(
        views[v].every((c) => c.paper !== 0),
        v,
      );
    assert.equal(views.substring[0].paper, 1);
  });

  it("returns empty views for a query without items", async () => {
    const views = await minderViewLists({ tries: ids.tries, maxTokens: ids.maxTokens, decoder }, { items: {} });
    for (const v of MINDER_VIEWS) assert.deepEqual(views[v], []);
  });
});

describe("MINDER model files", () => {
  it("writes vocab, the three view tries and the marker; a model dir also needs the decoder", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-minder-model-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    for (const f of minderIdentifierFiles(ids)) writeFileSync(path.join(dir, f.name), f.data);
    for (const v of MINDER_VIEWS) {
      const back = readTrieFile(path.join(dir, MINDER_TRIE_FILES[v]));
      assert.equal(back.identifierCount, ids.tries[v].identifierCount);
      assert.deepEqual(back.postings, ids.tries[v].postings);
    }
    const marker = JSON.parse(readFileSync(path.join(dir, MINDER_MARKER), "utf8")) as { views: string[] };
    assert.deepEqual(marker.views, [...MINDER_VIEWS]);
    assert.deepEqual(missingMinderModelFiles(dir), ["decoder.onnx", "output.f32", "config.json", "papers.json", "genret.json"]);
  });

  it("loadMinderModel rejects a decoder without one slot per view, or of another vocabulary, before loading its graph", async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-minder-model-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    for (const f of minderIdentifierFiles(ids)) writeFileSync(path.join(dir, f.name), f.data);
    const config = (vocab: number, facets: number) => JSON.stringify({ config: { vocab, dim_in: 4, d: 2, layers: 1, heads: 1, facets } });
    writeFileSync(path.join(dir, "config.json"), config(ids.vocab.size, 4));
    writeFileSync(path.join(dir, "papers.json"), JSON.stringify({ externalIds: papers.map((_, i) => `p${i}`) }));
    writeFileSync(path.join(dir, "genret.json"), JSON.stringify({ embedder: "toy", variant: "minder" }));
    writeFileSync(path.join(dir, "decoder.onnx"), "not an onnx graph");
    writeFileSync(path.join(dir, "output.f32"), new Uint8Array(0));
    await assert.rejects(loadMinderModel(dir), { message: `${dir}: the decoder has 4 slots, MINDER needs 3 (one per view): was it trained on a MINDER pack?` });
    writeFileSync(path.join(dir, "config.json"), config(ids.vocab.size + 1, 3));
    await assert.rejects(loadMinderModel(dir), { message: `${dir}: the decoder has ${ids.vocab.size + 1} output tokens, vocab.json ${ids.vocab.size}` });
    writeFileSync(path.join(dir, "config.json"), config(ids.vocab.size, 3));
    await assert.rejects(loadMinderModel(dir), /output\.f32 has 0 bytes/);
    writeFileSync(path.join(dir, MINDER_MARKER), JSON.stringify({ format: "graft-minder", views: ["title"] }));
    await assert.rejects(loadMinderModel(dir), /expected format graft-minder with views title, substring, pseudo-query/);
  });
});

describe("MINDER end to end: pack → trainer (PyTorch) → ONNX → eval provider views", () => {
  // Needs Debian's python3-torch and python3-onnx, as trainer.test.ts does.
  const PYTHON = process.env.GRAFT_PYTHON ?? "/usr/bin/python3";
  const DIM = 16;
  const rand = mulberry32(11);
  const unit = (): Float32Array => {
    const v = Float32Array.from({ length: DIM }, () => rand() - 0.5);
    const n = Math.hypot(...v);
    return v.map((x) => x / n);
  };
  // One distinct vector per facet item, laid out as PackedFacetItems.
  const items = Object.fromEntries(
    FACETS.map((f) => {
      const counts = papers.map((p) => p.facets[f]?.length ?? 0);
      const offsets = Int32Array.from([0, ...counts.map((_, i) => counts.slice(0, i + 1).reduce((a, b) => a + b, 0))]);
      const data = new Float32Array(offsets[3] * DIM);
      for (let k = 0; k < offsets[3]; k++) data.set(unit(), k * DIM);
      return [f, { dim: DIM, offsets, data }];
    }),
  ) as Record<Facet, { dim: number; offsets: Int32Array; data: Float32Array }>;
  const vectorOf = (f: Facet, paper: number, item: number): Float32Array =>
    items[f].data.subarray((items[f].offsets[paper] + item) * DIM, (items[f].offsets[paper] + item + 1) * DIM);
  // The task: each source item -> its pair's neighbour, in every view.
  const pairs = pairsOf([
    ["problems", 1, 0, 0, "problems", 0],
    ["methods", 0, 0, 1, "methods", 0],
    ["results", 1, 0, 2, "results", 0],
  ]);
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-minder-e2e-"));
  const modelDir = path.join(dir, "models", "minder");
  after(() => rmSync(dir, { recursive: true, force: true }));

  it("trains on the MINDER pack and decodes each view into corpus-indexed candidates", async () => {
    writeMinderPack(path.join(dir, "pack"), { ids, items, examples: minderExamples(ids, papers, pairs), embedder: "toy", sourceVariant: "uniform" });
    const run = path.join(dir, "run");
    const trained = await runTrainer(
      PYTHON,
      [
        path.join(repoRoot, "workers", "trainer", "train.py"),
        ...["--pack", path.join(dir, "pack"), "--out", run],
        ...["--d-model", "32", "--layers", "1", "--heads", "2", "--ff", "64", "--batch", "8", "--lr", "0.01", "--warmup", "10", "--dropout", "0"],
        ...["--epochs", "150", "--all-positions", "--progress-every", "0", "--checkpoint-every", "0"],
      ],
      () => {},
    );
    assert.equal((trained.config as { facets: number }).facets, 3, "one slot per view");

    mkdirSync(modelDir, { recursive: true });
    for (const f of minderIdentifierFiles(ids)) writeFileSync(path.join(modelDir, f.name), f.data);
    for (const f of ["decoder.onnx", "output.f32", "config.json", "train.json"]) writeFileSync(path.join(modelDir, f), readFileSync(path.join(run, f)));
    writeFileSync(path.join(modelDir, "papers.json"), JSON.stringify({ externalIds: papers.map((_, i) => `p${i}`) }));
    writeFileSync(path.join(modelDir, "genret.json"), JSON.stringify({ embedder: "toy", variant: "minder" }));

    const saved = process.env.GRAFT_GENRET_MODELS;
    process.env.GRAFT_GENRET_MODELS = path.join(dir, "models");
    try {
      const provider = await createGenerativeProvider({ corpusDir: dir, dataRoot: dir, log: () => {} });
      assert.equal(provider.unavailable?.("minder"), null);
      // The harness's corpus order differs from the model's: candidates must come back in the harness's.
      const corpusIds = ["p2", "p0", "p1"];
      const at = (paper: number): number => corpusIds.indexOf(`p${paper}`);
      const queries = [0, 1, 2].map((r) => {
        const f = FACETS[pairs.facet[r]];
        const q = pairs.sourcePaper[r];
        return {
          id: `p${q}`,
          corpusIndex: at(q),
          title: "",
          abstract: "",
          facets: { problems: [], methods: [], results: [], contributions: [] },
          items: { [f]: [vectorOf(f, q, pairs.sourceItem[r])] },
        };
      });
      const results = await provider.run("minder", queries, { corpusIds, embedder: "toy" });
      assert.equal(results.length, 3);
      results.forEach((r, k) => {
        assert.equal(r.lists, undefined);
        const views = r.views ?? {};
        assert.deepEqual(Object.keys(views), [...MINDER_VIEWS]);
        const target = at(pairs.targetPaper[k]);
        for (const v of MINDER_VIEWS) {
          if (v === "substring" && pairs.targetPaper[k] === 2) continue; // paper 2 has no substring
          assert.ok(views[v].length > 0, `query ${k}, ${v}`);
          assert.ok(views[v].every((c) => c.paper !== queries[k].corpusIndex && c.paper < 3 && c.score !== undefined && c.queryItem === 0));
          assert.equal(views[v][0].paper, target, `query ${k}: ${v} finds the learnt neighbour`);
        }
      });
    } finally {
      if (saved === undefined) delete process.env.GRAFT_GENRET_MODELS;
      else process.env.GRAFT_GENRET_MODELS = saved;
    }
  });
});
