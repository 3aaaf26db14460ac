import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { FACETS, type Facet } from "@/lib/corpus";
import type { DistillationExamples } from "./distill";
import { docIdTokens } from "./docid";
import { decisionMask, decisionMaskByRow, encodeTargets, packItemTokens, packQueries, writePackFiles, writeTrainingPack, type PackHeader } from "./pack";
import { buildIdentifiers } from "./prepare";
import { buildTrie } from "./trie";
import { compactIndex, EOS, PAD } from "./vocab";

const facets = [
  { problems: ["Parsing noisy text", "Parsing clean text"], methods: ["A neural parser"], results: ["Better accuracy"], contributions: [] },
  { problems: ["Parsing noisy speech"], methods: ["A neural parser", "A rule-based parser"], results: [], contributions: ["A treebank"] },
  { problems: ["Tagging"], methods: [], results: ["Better accuracy on news"], contributions: ["A tagger"] },
];
const ids = buildIdentifiers({ ids: ["a", "b", "c"], facets });

describe("decision masks", () => {
  const { rows, maxLen, offset } = encodeTargets(ids.index, ids.vocab);
  const facetOfRow = (row: number): Facet => FACETS.findLast((f) => offset[f] <= row) as Facet;

  it("per row, with each row's trie, equals the per-facet mask", () => {
    const byFacet = decisionMask(rows, maxLen, offset, ids.tries);
    assert.deepEqual(
      decisionMaskByRow(rows, maxLen, (row) => ids.tries[facetOfRow(row)]),
      byFacet,
    );
    // "parsing noisy …" and "parsing clean …" share a prefix: the first token is a choice, EOS rows end with 0s.
    assert.ok(byFacet.some((d) => d === 1) && byFacet.some((d) => d === 0));
  });

  it("marks where the trie leaves a choice, EOS counted at a terminal with children", () => {
    // Identifiers [5], [5, 6], [7]: root has 2 children; after 5 EOS and 6 are both allowed; after 7 only EOS.
    const trie = buildTrie([[5], [5, 6], [7]]);
    const t = Int32Array.of(5, EOS, PAD, 5, 6, EOS, 7, EOS, PAD);
    assert.deepEqual(Array.from(decisionMaskByRow(t, 3, () => trie)), [1, 1, 0, 1, 1, 0, 1, 0, 0]);
  });

  it("rejects a target row that leaves its trie", () => {
    const trie = buildTrie([[5]]);
    assert.throws(() => decisionMaskByRow(Int32Array.of(5, EOS, 9, EOS), 2, () => trie), /target row 1 is not in its trie/);
  });
});

type Items = Record<Facet, { dim: number; offsets: Int32Array; data: Float32Array }>;

/** Item vectors of `papers` (each value a distinct number), dim 2. */
function itemVectors(papers: typeof facets): Items {
  const dim = 2;
  return Object.fromEntries(
    FACETS.map((f, fi) => {
      const offsets = Int32Array.from({ length: papers.length + 1 }, () => 0);
      papers.forEach((p, i) => (offsets[i + 1] = offsets[i] + p[f].length));
      const data = Float32Array.from({ length: offsets[papers.length] * dim }, (_, k) => 100 * fi + k);
      return [f, { dim, offsets, data }];
    }),
  ) as Items;
}

describe("packQueries", () => {
  it("stacks the facets' item vectors and finds an item's row", () => {
    const dim = 2;
    const items = itemVectors(facets);
    const q = packQueries(items);
    assert.equal(q.dim, dim);
    assert.equal(q.numQueries, 4 + 3 + 2 + 2);
    assert.deepEqual(q.queryOffset, { problems: 0, methods: 4, results: 7, contributions: 9 });
    assert.equal(q.queries.length, q.numQueries * dim);
    for (const f of FACETS) {
      facets.forEach((p, paper) =>
        p[f].forEach((_, item) => {
          const src = (items[f].offsets[paper] + item) * dim;
          const row = q.row(f, paper, item);
          assert.deepEqual(q.queries.subarray(row * dim, (row + 1) * dim), items[f].data.subarray(src, src + dim), `${f} ${paper}:${item}`);
        }),
      );
    }
  });
});

describe("writePackFiles", () => {
  it("writes every array little-endian and the header, leaving no temporary files", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-pack-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const out = path.join(dir, "pack");
    const header = {
      format: "graft-genret-pack",
      version: 1,
      dim: 2,
      maxLen: 2,
      vocabSize: 3,
      facets: ["x"],
      numQueries: 1,
      numTargets: 1,
      numExamples: 1,
    } as unknown as PackHeader;
    const arrays = {
      queries: Float32Array.of(0.5, -1),
      targets: Int32Array.of(2, EOS),
      examples: Int32Array.of(0, 0, 0, -1),
      weights: Float32Array.of(1),
      decisions: Uint8Array.of(1, 0),
    };
    assert.equal(writePackFiles(out, header, arrays), header);
    assert.deepEqual(readdirSync(out).sort(), ["decisions.u8", "examples.i32", "pack.json", "queries.f32", "targets.i32", "weights.f32"]);
    const back = (name: string) => readFileSync(path.join(out, name));
    assert.deepEqual(new Float32Array(new Uint8Array(back("queries.f32")).buffer), arrays.queries);
    assert.deepEqual(new Int32Array(new Uint8Array(back("targets.i32")).buffer), arrays.targets);
    assert.deepEqual(new Int32Array(new Uint8Array(back("examples.i32")).buffer), arrays.examples);
    assert.deepEqual(new Float32Array(new Uint8Array(back("weights.f32")).buffer), arrays.weights);
    assert.deepEqual(new Uint8Array(back("decisions.u8")), arrays.decisions);
    assert.deepEqual(JSON.parse(back("pack.json").toString("utf8")), header);
    assert.ok(!existsSync(path.join(dir, "pack.json")));
  });
});

describe("packItemTokens", () => {
  const map = compactIndex(ids.vocab);
  const compact = (text: string): number[] => docIdTokens(text, 32).map((t) => map.get(t) as number);

  it("writes each item's DocID-normalised tokens as compact ids in its queries.f32 row, PAD-filled", () => {
    const items = itemVectors(facets);
    const q = packQueries(items);
    const { tokens, stats } = packItemTokens(facets, items, q, ids.vocab, 8);
    assert.equal(tokens.length, q.numQueries * 8);
    for (const f of FACETS) {
      facets.forEach((p, paper) =>
        p[f].forEach((text, item) => {
          const row = Array.from(tokens.subarray(q.row(f, paper, item) * 8, (q.row(f, paper, item) + 1) * 8));
          const want = compact(text);
          assert.ok(want.length > 0 && want.every((c) => c >= 2), `${text}: every token of a DocID is in the vocabulary`);
          assert.deepEqual(row, [...want, ...Array(8 - want.length).fill(PAD)], `${f} ${paper}:${item}`);
        }),
      );
    }
    assert.deepEqual(stats, { maxTokens: 8, tokens: tokens.filter((t) => t !== PAD).length, dropped: 0, emptyRows: 0 });
  });

  it("drops tokens outside the vocabulary and cuts an item at maxTokens", () => {
    const texts = facets.map((p) => ({ ...p, problems: [...p.problems] }));
    texts[0].problems[0] = "Parsing wombat text";
    texts[1].problems[0] = `parsing${" noisy".repeat(40)}`;
    const items = itemVectors(texts);
    const q = packQueries(items);
    const { tokens, stats } = packItemTokens(texts, items, q, ids.vocab, 8);
    const row = (paper: number): number[] => Array.from(tokens.subarray(q.row("problems", paper, 0) * 8, (q.row("problems", paper, 0) + 1) * 8));
    // " wombat" is in no DocID: the tokens of "parsing" and " text" stay, in order.
    const kept = [...compact("parsing"), compact("parsing noisy text").at(-1) as number];
    assert.deepEqual(row(0), [...kept, ...Array(8 - kept.length).fill(PAD)]);
    assert.ok(stats.dropped > 0);
    assert.equal(stats.dropped, docIdTokens("parsing wombat text").length - kept.length);
    assert.deepEqual(row(1), compact(texts[1].problems[0]).slice(0, 8));
    assert.ok(row(1).every((t) => t !== PAD));
  });

  it("rejects texts that do not match the vectors", () => {
    const items = itemVectors(facets);
    const texts = facets.map((p) => ({ ...p, methods: [...p.methods] }));
    texts[1].methods.pop();
    assert.throws(() => packItemTokens(texts, items, packQueries(items), ids.vocab), /paper 1 has 1 methods texts, 2 vectors/);
  });

  it("writeTrainingPack writes itemTokens.i32 and its statistics only when given the texts", () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), "graft-pack-tokens-"));
    after(() => rmSync(dir, { recursive: true, force: true }));
    const items = itemVectors(facets);
    const examples: DistillationExamples = {
      length: 1,
      facet: new Uint8Array(1),
      origin: new Uint8Array(1),
      sourcePaper: Int32Array.of(0),
      sourceItem: Int32Array.of(1),
      targetPaper: Int32Array.of(1),
      targetIdentifier: Int32Array.of(1),
      weight: Float32Array.of(1),
      negative: Int32Array.of(-1),
      meta: { numPapers: 3, identifierCounts: { problems: 4, methods: 3, results: 2, contributions: 2 }, kMin: 1, seed: 0, options: {} },
    };
    const input = { index: ids.index, vocab: ids.vocab, items, examples, tries: ids.tries, embedder: "toy", variant: "toy" };
    const plain = writeTrainingPack(path.join(dir, "plain"), input);
    assert.equal(plain.itemTokens, undefined);
    assert.ok(!existsSync(path.join(dir, "plain", "itemTokens.i32")));
    const header = writeTrainingPack(path.join(dir, "tokens"), { ...input, texts: facets });
    assert.equal(header.itemTokens?.maxTokens, 32);
    const written = new Int32Array(new Uint8Array(readFileSync(path.join(dir, "tokens", "itemTokens.i32"))).buffer);
    assert.equal(written.length, header.numQueries * 32);
    // The example's query row (problems, paper 0, item 1) holds that item's words.
    const row = Array.from(written.subarray(32, 64)).filter((t) => t !== PAD);
    assert.deepEqual(row, compact(facets[0].problems[1]));
    assert.equal(header.itemTokens?.tokens, written.filter((t) => t !== PAD).length);
  });
});
