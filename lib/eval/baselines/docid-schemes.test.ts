import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { FACETS, type Facet, type FacetLists, type Split } from "@/lib/corpus";
import { type FacetCsr, type PaperGraph, packFacetItems, type PackedFacetItems } from "@/lib/graph";
import { mulberry32 } from "@/lib/random";
import {
  buildClusterTree,
  c2tDocIdIndex,
  c2tKeywordPaths,
  childKeywords,
  digitTokens,
  identifierShape,
  kMeans,
  keywordTerms,
  numericDocIdIndex,
  paperEmbeddings,
  schemeIdentifiers,
  treeShape,
  type ClusterTree,
  type SchemeCorpus,
} from "./docid-schemes";
import { writeTrainingPack, identifierFiles, readIdentifierFiles, trainingExamples, type GenretCorpus } from "@/lib/genret";
import { decodeTokens, encodeDocIdTokens } from "@/lib/text";

/** Row-major matrix of `groups` tight blobs of `size` points each around far-apart unit axes (dim = groups). */
function blobs(groups: number, size: number, seed = 1): { data: Float32Array; dim: number; n: number; group: number[] } {
  const rand = mulberry32(seed);
  const dim = Math.max(groups, 2);
  const n = groups * size;
  const data = new Float32Array(n * dim);
  const group: number[] = [];
  for (let g = 0; g < groups; g++) {
    for (let i = 0; i < size; i++) {
      const p = g * size + i;
      for (let d = 0; d < dim; d++) data[p * dim + d] = (d === g ? 1 : 0) + (rand() - 0.5) * 0.05;
      group.push(g);
    }
  }
  return { data, dim, n, group };
}

/** Every leaf's members, from the tree's paths. */
function leavesOf(tree: ClusterTree): Map<string, number[]> {
  const leaves = new Map<string, number[]>();
  tree.paths.forEach((p, i) => {
    const key = p.join(".");
    leaves.set(key, [...(leaves.get(key) ?? []), i]);
  });
  return leaves;
}

describe("kMeans", () => {
  test("separates a hand-made two-cluster set", () => {
    // Three points near (1, 0), three near (0, 1), interleaved.
    const pts = [
      [1, 0.05],
      [0.02, 1],
      [0.95, 0],
      [0, 0.97],
      [1.02, -0.03],
      [-0.04, 1.01],
    ];
    const data = Float32Array.from(pts.flat());
    const { assignment, count } = kMeans(data, 2, [0, 1, 2, 3, 4, 5], 2, { seed: 7 });
    assert.equal(count, 2);
    assert.equal(assignment[0], assignment[2]);
    assert.equal(assignment[0], assignment[4]);
    assert.equal(assignment[1], assignment[3]);
    assert.equal(assignment[1], assignment[5]);
    assert.notEqual(assignment[0], assignment[1]);
  });

  test("is deterministic for a seed and works on a subset of rows", () => {
    const { data, dim } = blobs(4, 20);
    const rows = Array.from({ length: 40 }, (_, i) => i * 2);
    const a = kMeans(data, dim, rows, 5, { seed: 3 });
    const b = kMeans(data, dim, rows, 5, { seed: 3 });
    assert.deepEqual(a, b);
    assert.equal(a.assignment.length, rows.length);
    assert.ok(a.count >= 4 && a.count <= 5, `clusters: ${a.count}`);
    // Renumbered densely: every index below count is used.
    assert.deepEqual(
      [...new Set(a.assignment)].sort(),
      Array.from({ length: a.count }, (_, i) => i),
    );
  });

  test("returns fewer clusters than k when there are fewer distinct points", () => {
    const data = Float32Array.from([0, 1, 0, 1, 1, 0, 1, 0, 1, 0]);
    const { assignment, count } = kMeans(data, 2, [0, 1, 2, 3, 4], 4, { seed: 0 });
    assert.equal(count, 2);
    assert.equal(assignment[0], assignment[1]);
    assert.equal(assignment[2], assignment[3]);
    assert.equal(assignment[3], assignment[4]);
    assert.notEqual(assignment[0], assignment[2]);
  });
});

describe("buildClusterTree (hierarchical k-means)", () => {
  test("leaves hold at most 10 papers, paths and leaf indices are consistent", () => {
    const { data, dim, n } = blobs(3, 45);
    const tree = buildClusterTree(data, dim, n, { seed: 0 });
    const leaves = leavesOf(tree);
    for (const members of leaves.values()) {
      assert.ok(members.length <= 10);
      // Leaf index = position among the leaf's members, corpus order.
      assert.deepEqual(
        members.map((p) => tree.leafIndex[p]),
        members.map((_, i) => i),
      );
    }
    assert.equal(
      [...leaves.values()].reduce((s, m) => s + m.length, 0),
      n,
    );
    const shape = treeShape(tree);
    assert.equal(shape.leaves, leaves.size);
    assert.ok(shape.maxDepth >= 2, "135 papers need at least two levels");
    for (const p of tree.paths) for (const c of p) assert.ok(c >= 0 && c < 10);
  });

  test("same seed, same tree; the top split follows the blobs", () => {
    const { data, dim, n, group } = blobs(3, 30);
    const a = buildClusterTree(data, dim, n, { seed: 5, branching: 3 });
    const b = buildClusterTree(data, dim, n, { seed: 5, branching: 3 });
    assert.deepEqual(a.paths, b.paths);
    assert.deepEqual(a.leafIndex, b.leafIndex);
    for (let p = 0; p < n; p++) {
      for (let q = 0; q < n; q++) assert.equal(a.paths[p][0] === a.paths[q][0], group[p] === group[q], `papers ${p}, ${q}`);
    }
  });

  test("identical vectors (papers without items) still split into ≤ 10-paper leaves", () => {
    const n = 37;
    const tree = buildClusterTree(new Float32Array(n * 4), 4, n, { seed: 0 });
    for (const members of leavesOf(tree).values()) assert.ok(members.length <= 10);
    assert.equal(new Set(tree.paths.map((p, i) => [...p, tree.leafIndex[i]].join("."))).size, n);
  });

  test("a corpus of at most 10 papers is a single leaf", () => {
    const { data, dim } = blobs(2, 4);
    const tree = buildClusterTree(data, dim, 8);
    assert.deepEqual(
      tree.paths,
      Array.from({ length: 8 }, () => []),
    );
    assert.deepEqual(tree.leafIndex, [0, 1, 2, 3, 4, 5, 6, 7]);
  });
});

const emptyItems = (n: number, dim: number): PackedFacetItems => ({ dim, offsets: new Int32Array(n + 1), data: new Float32Array(0) });

/** A corpus whose papers each have one methods item (their blob vector) and `extra` problems items. */
function blobCorpus(groups: number, size: number, words: string[][]): SchemeCorpus & { group: number[] } {
  const { data, dim, n, group } = blobs(groups, size);
  const vec = (p: number): Float32Array => data.slice(p * dim, (p + 1) * dim);
  const facets: FacetLists[] = Array.from({ length: n }, (_, p) => ({ methods: [words[group[p]].join(" ") + ` item ${p}`] }));
  const items = Object.fromEntries(FACETS.map((f) => [f, emptyItems(n, dim)])) as Record<Facet, PackedFacetItems>;
  items.methods = packFacetItems(
    Array.from({ length: n }, (_, p) => [vec(p)]),
    dim,
  );
  return {
    ids: Array.from({ length: n }, (_, p) => `P${p}`),
    facets,
    titles: Array.from({ length: n }, (_, p) => `Paper ${p} on ${words[group[p]][0]}`),
    items,
    group,
  };
}

describe("numeric codebook", () => {
  test("digits 0-9 are single Llama-3 tokens", () => {
    const digits = digitTokens();
    assert.equal(new Set(digits).size, 10);
    digits.forEach((t, d) => assert.equal(decodeTokens([t]), String(d)));
  });

  test("identifiers are unique, digit paths then leaf index, and same-cluster papers share a prefix", () => {
    const corpus = blobCorpus(3, 30, [["parsing"], ["translation"], ["speech"]]);
    const tree = buildClusterTree(paperEmbeddings(corpus.items).data, 3, 90, { seed: 0, branching: 3 });
    const index = numericDocIdIndex(corpus, tree);
    for (const f of FACETS) {
      const ids = index.facets[f];
      assert.equal(ids.identifiers.length, 90, "unique per paper, in every facet");
      assert.ok(ids.papersOf.every((o) => o.length === 1));
      // Every item of a paper maps to the paper's identifier.
      ids.itemIdentifiers.forEach((row, p) => row.forEach((id) => assert.deepEqual(ids.papersOf[id], [p])));
    }
    const text = (p: number): string => decodeTokens(index.facets.methods.identifiers[index.facets.methods.itemIdentifiers[p][0]]);
    for (let p = 0; p < 90; p++) assert.equal(text(p), [...tree.paths[p], tree.leafIndex[p]].join(""));
    for (let p = 0; p < 90; p++) {
      for (let q = p + 1; q < 90; q++) assert.equal(text(p)[0] === text(q)[0], corpus.group[p] === corpus.group[q]);
    }
    assert.equal(index.maxTokens, Math.max(...Array.from({ length: 90 }, (_, p) => text(p).length)));
    assert.deepEqual(identifierShape(index.facets.problems).collisions, 0);
  });

  test("is deterministic end to end", () => {
    const corpus = blobCorpus(4, 25, [["a"], ["b"], ["c"], ["d"]]);
    const a = schemeIdentifiers("numeric", corpus);
    const b = schemeIdentifiers("numeric", corpus);
    assert.deepEqual(a.identifiers.index, b.identifiers.index);
    assert.deepEqual(Array.from(a.identifiers.vocab.llamaIds), Array.from(b.identifiers.vocab.llamaIds));
    // Compact vocabulary: PAD, EOS and at most the ten digits.
    assert.ok(a.identifiers.vocab.size <= 12);
  });
});

describe("C2T cluster keywords", () => {
  test("keywordTerms drops stopwords, short words and numbers", () => {
    assert.deepEqual(keywordTerms("The BLEU of 2019 on an NMT model is 34"), ["bleu", "nmt", "model"]);
    assert.deepEqual(keywordTerms("In this paper we study parsing using treebanks"), ["parsing", "treebanks"]);
  });

  test("a child's keyword is its highest TF-IDF word against its siblings", () => {
    const vocab = ["language", "parsing", "translation", "model"];
    // Papers 0-2 parse, 3-5 translate; every paper says "language", papers 0 and 1 also "model".
    // Parser cluster: parsing 1·ln(1+6/3) = 1.10 > model 2/3·ln(1+6/2) = 0.92 > language 1·ln(1+6/6) = 0.69.
    const terms = [
      [0, 1, 3],
      [0, 1, 3],
      [0, 1],
      [0, 2],
      [0, 2],
      [0, 2],
    ];
    assert.deepEqual(
      childKeywords(terms, vocab, [
        [0, 1, 2],
        [3, 4, 5],
      ]),
      ["parsing", "translation"],
    );
    // An ancestor's keyword is not reused.
    assert.deepEqual(
      childKeywords(
        terms,
        vocab,
        [
          [0, 1, 2],
          [3, 4, 5],
        ],
        new Set([1]),
      ),
      ["model", "translation"],
    );
  });

  test("siblings get distinct keywords: the better-scoring one keeps a shared favourite", () => {
    const vocab = ["neural", "tagging"];
    // Parent of 7 papers. A = {0, 1}: neural 1·ln(1+7/5) = 0.88. B = {2, 3, 4}: tagging
    // 2/3·ln(1+7/2) = 1.00, neural 0.58. C = {5, 6}: only neural, 1/2·0.88 = 0.44, which A takes.
    const terms = [[0], [0], [0, 1], [0], [1], [0], []];
    const kw = childKeywords(terms, vocab, [
      [0, 1],
      [2, 3, 4],
      [5, 6],
    ]);
    assert.deepEqual(kw, ["neural", "tagging", "2"], "C has no word left: its index");
  });

  test("ties go to the word rarer in the corpus, then alphabetically", () => {
    const vocab = ["also", "treebank", "lexicon"];
    // Both children: every word in all members and absent from the sibling, so all tie.
    const terms = [[0, 1, 2], [0, 1, 2], [], []];
    const children = [
      [0, 1],
      [2, 3],
    ];
    assert.deepEqual(childKeywords(terms, vocab, children, new Set(), [900, 3, 3]), ["lexicon", "1"]);
    assert.deepEqual(childKeywords(terms, vocab, children, new Set(), [900, 2, 3]), ["treebank", "1"]);
    assert.deepEqual(childKeywords(terms, vocab, children), ["also", "1"], "without corpus counts: alphabetical");
  });

  test("identifiers are the path's keywords, leaf-mates collide and keep every paper", () => {
    const corpus = blobCorpus(3, 30, [
      ["parsing", "syntax"],
      ["translation", "bleu"],
      ["speech", "acoustic"],
    ]);
    const { identifiers, tree } = schemeIdentifiers("c2t", corpus, { branching: 3, seed: 0 });
    assert.ok(tree);
    const index = identifiers.index;
    const paths = c2tKeywordPaths(corpus, tree);
    const topic = ["parsing|syntax", "translation|bleu", "speech|acoustic"];
    for (let p = 0; p < 90; p++) {
      assert.equal(paths[p].length, tree.paths[p].length);
      assert.match(paths[p][0], new RegExp(`^(${topic[corpus.group[p]]})$`), `paper ${p}: ${paths[p].join(" ")}`);
      const id = index.facets.methods.itemIdentifiers[p][0];
      assert.equal(decodeTokens(index.facets.methods.identifiers[id]), paths[p].join(" "));
      for (const f of FACETS) assert.ok(index.facets[f].papersOf[id].includes(p));
    }
    for (const members of leavesOf(tree).values()) {
      const ids = new Set(members.map((p) => index.facets.methods.itemIdentifiers[p][0]));
      assert.equal(ids.size, 1, "papers under one leaf share an identifier");
      assert.deepEqual(index.facets.problems.papersOf[[...ids][0]], members);
    }
    const shape = identifierShape(index.facets.methods);
    assert.equal(shape.distinctIdentifiers, leavesOf(tree).size);
    assert.equal(
      shape.papersInCollisions,
      [...leavesOf(tree).values()].filter((m) => m.length > 1).reduce((s, m) => s + m.length, 0),
    );
  });

  test("keywords are cut to 12 Llama-3 tokens", () => {
    const long = ["electroencephalography", "psycholinguistics", "morphosyntactic", "disambiguation"];
    const corpus = blobCorpus(2, 12, [long, long.map((w) => `${w}x`)]);
    const tree = buildClusterTree(paperEmbeddings(corpus.items).data, 2, 24, { branching: 2, leafSize: 1 });
    const index = c2tDocIdIndex(corpus, tree);
    const paths = c2tKeywordPaths(corpus, tree);
    for (let p = 0; p < 24; p++) {
      const full = encodeDocIdTokens(paths[p].join(" "));
      const id = index.facets.methods.identifiers[index.facets.methods.itemIdentifiers[p][0]];
      assert.deepEqual(id, full.slice(0, 12));
    }
    assert.ok(index.facets.methods.truncatedItemCount > 0, "this tree is deep enough for some paths to be cut");
  });
});

describe("baseline Identifiers through the pipeline", () => {
  /** Papers 0..n-1, a ring of methods edges p -> p+1 and problems edges p -> p+2; even papers train. */
  function graphOf(n: number): PaperGraph {
    const csr = (step: number): FacetCsr => ({
      numPapers: n,
      offsets: Int32Array.from({ length: n + 1 }, (_, i) => i),
      targets: Int32Array.from({ length: n }, (_, p) => (p + step) % n),
      weights: Float32Array.from({ length: n }, (_, p) => 0.5 + (p % 3) / 10),
      facetScores: new Float32Array(n).fill(0.5),
      citationScores: new Float32Array(n),
    });
    return { numPapers: n, k: 1, facets: { methods: csr(1), problems: csr(2) } };
  }

  for (const scheme of ["numeric", "c2t"] as const) {
    test(`${scheme}: trainingExamples targets the target paper's identifier; pack and identifier files work`, () => {
      const base = blobCorpus(3, 20, [["parsing"], ["translation"], ["speech"]]);
      const n = base.ids.length;
      // Problems items for the even papers (two each), so facets differ in coverage.
      const dim = base.items.methods.dim;
      base.items.problems = packFacetItems(
        Array.from({ length: n }, (_, p) =>
          p % 2 === 0 ? [base.items.methods.data.slice(p * dim, (p + 1) * dim), base.items.methods.data.slice(p * dim, (p + 1) * dim)] : [],
        ),
        dim,
      );
      base.facets.forEach((f, p) => (f.problems = p % 2 === 0 ? [`problem a ${p}`, `problem b ${p}`] : []));
      const { identifiers } = schemeIdentifiers(scheme, base);
      assert.deepEqual(identifiers.index.facets.problems.itemIdentifiers[0].length, 2);
      assert.deepEqual(identifiers.index.facets.problems.itemIdentifiers[1], []);
      // Every facet's trie holds the same identifiers.
      for (const f of FACETS) assert.equal(identifiers.tries[f].identifierCount, identifiers.tries.methods.identifierCount);

      const corpus: GenretCorpus = {
        ids: base.ids,
        splits: base.ids.map((_, p): Split => (p % 2 === 0 ? "train" : "test")),
        facets: base.facets,
        graph: graphOf(n),
      };
      for (const variant of ["uniform", "+fallback"]) {
        const ex = trainingExamples(corpus, identifiers, variant, 0);
        assert.ok(ex.length > 0);
        for (let r = 0; r < ex.length; r++) {
          const f = FACETS[ex.facet[r]];
          assert.ok(identifiers.index.facets[f].papersOf[ex.targetIdentifier[r]].includes(ex.targetPaper[r]), `${variant} example ${r}`);
          assert.equal(corpus.splits[ex.sourcePaper[r]], "train");
        }
      }

      const dir = mkdtempSync(path.join(tmpdir(), `docid-${scheme}-`));
      try {
        const examples = trainingExamples(corpus, identifiers, "uniform", 0);
        const header = writeTrainingPack(path.join(dir, "pack"), {
          index: identifiers.index,
          vocab: identifiers.vocab,
          items: base.items,
          examples,
          tries: identifiers.tries,
          embedder: "test",
          variant: "uniform",
        });
        assert.equal(header.numExamples, examples.length);
        assert.equal(header.numTargets, FACETS.length * identifiers.tries.methods.identifierCount);
        assert.equal(header.maxLen, identifiers.index.maxTokens + 1);
        const raw = readFileSync(path.join(dir, "pack", "targets.i32"));
        const targets = new Int32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
        assert.equal(targets.length, header.numTargets * header.maxLen);
        for (const f of identifierFiles(identifiers)) writeFileSync(path.join(dir, f.name), f.data);
        const loaded = readIdentifierFiles(dir);
        assert.equal(loaded.maxTokens, identifiers.index.maxTokens);
        assert.deepEqual(Array.from(loaded.vocab.llamaIds), Array.from(identifiers.vocab.llamaIds));
        // Each paper's identifier decodes, through the loaded trie's postings, back to the paper.
        const llamaToCompact = new Map(Array.from(loaded.vocab.llamaIds, (l, c) => [l, c]));
        for (let p = 0; p < n; p++) {
          const id = identifiers.index.facets.methods.itemIdentifiers[p][0];
          const node = loaded.tries.problems.walk(identifiers.index.facets.methods.identifiers[id].map((t) => llamaToCompact.get(t) as number));
          assert.ok(node > 0 && loaded.tries.problems.isTerminal(node));
          const ident = loaded.tries.problems.identifierAt(node);
          const postings = loaded.tries.problems.postings as Int32Array;
          const start = (loaded.tries.problems.postingStart as Int32Array)[ident];
          const end = (loaded.tries.problems.postingStart as Int32Array)[ident + 1];
          assert.ok(Array.from(postings.subarray(start, end)).includes(p));
        }
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }

  test("a corpus whose item counts disagree with its vectors is refused", () => {
    const base = blobCorpus(2, 6, [["a"], ["b"]]);
    base.facets[0].methods = [];
    assert.throws(() => schemeIdentifiers("numeric", base), /paper P0: 0 methods items but 1 item vectors/);
  });
});
