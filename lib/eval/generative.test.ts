import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import {
  availability,
  GenerativeOutputError,
  hasModelScores,
  loadGenerativeProvider,
  paperQuery,
  validateGenerativeResults,
  viewLmScore,
  type GenerativeQuery,
} from "./generative";

const close = (a: number, b: number): void => assert.ok(Math.abs(a - b) < 1e-12, `${a} ≉ ${b}`);
const queries: GenerativeQuery[] = [
  paperQuery(
    "Q1",
    3,
    { title: "t", abstract: "a", facets: { problems: ["p"], methods: [], results: [], contributions: [] } },
    { problems: [Float32Array.of(1, 0)] },
  ),
];

test("MINDER view fusion sums each view's best identifier probability", () => {
  const ln = Math.log;
  const out = viewLmScore(
    {
      // title view: paper 1 twice (best .5), paper 2 (.25)
      title: [
        { paper: 1, score: ln(0.5) },
        { paper: 2, score: ln(0.25) },
        { paper: 1, score: ln(0.125) },
      ],
      // substring view: paper 2 (.5), paper 9 excluded
      substring: [
        { paper: 2, score: ln(0.5) },
        { paper: 9, score: ln(0.9) },
      ],
      "pseudo-query": [{ paper: 3, score: ln(0.0625) }],
    },
    { exclude: 9 },
  );
  // 2: .25 + .5 = .75; 1: .5; 3: .0625
  assert.deepEqual(
    out.map((r) => r.paper),
    [2, 1, 3],
  );
  close(out[0].score, 0.75);
  close(out[1].score, 0.5);
  assert.deepEqual(out[0].provenance, []);
  assert.deepEqual(
    viewLmScore(
      {
        title: [
          { paper: 1, score: 0 },
          { paper: 2, score: -1 },
        ],
      },
      { topN: 1 },
    ).map((r) => r.paper),
    [1],
  );
});

test("validation accepts facet lists or views, and names what is wrong otherwise", () => {
  const ok = validateGenerativeResults("uniform", queries, [{ lists: { problems: [{ paper: 0, score: -1, queryItem: 0, docId: 4 }] } }], 5);
  assert.equal(ok[0].lists?.problems?.[0].docId, 4);
  assert.deepEqual(validateGenerativeResults("minder", queries, [{ views: { title: [{ paper: 1, score: -2 }] } }], 5)[0].views?.title?.[0].paper, 1);
  assert.throws(() => validateGenerativeResults("uniform", queries, [], 5), /0 results for 1 queries/);
  assert.throws(() => validateGenerativeResults("uniform", queries, {}, 5), GenerativeOutputError);
  assert.throws(
    () => validateGenerativeResults("uniform", queries, [{ lists: { problems: [{ paper: 7 }] } }], 5),
    /query Q1, problems: paper 7 is not a corpus index/,
  );
  assert.throws(() => validateGenerativeResults("uniform", queries, [{ lists: { problems: [{ paper: -1 }] } }], 5), /query Q1: lists\.problems\.0\.paper/);
  assert.throws(() => validateGenerativeResults("uniform", queries, [{ lists: { other: [] } }], 5), /query Q1/);
  assert.throws(() => validateGenerativeResults("uniform", queries, [{ lists: {}, views: {} }], 5), /exactly one of lists/);
  assert.throws(() => validateGenerativeResults("uniform", queries, [{ lists: { methods: [{ paper: 1, score: Number.NaN }] } }], 5), /score: .*NaN/);
});

test("availability: no provider, a provider's own verdict, or runnable", () => {
  assert.match(availability(undefined, "uniform") ?? "", /no generative provider/);
  const provider = { run: async () => [], unavailable: (v: string) => (v === "docid-c2t" ? "C2T identifiers are not built" : null) };
  assert.equal(availability(provider, "docid-c2t"), "C2T identifiers are not built");
  assert.equal(availability(provider, "uniform"), null);
  assert.equal(availability({ run: async () => [] }, "minder"), null);
});

test("hasModelScores needs a score on every candidate", () => {
  assert.equal(hasModelScores({ problems: [{ paper: 1, score: -1 }], methods: [] }), true);
  assert.equal(hasModelScores({ problems: [{ paper: 1, score: -1 }, { paper: 2 }] }), false);
});

test("loadGenerativeProvider loads createGenerativeProvider from a module file", async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), "graft-genprov-"));
  try {
    const good = path.join(dir, "good.mjs");
    writeFileSync(
      good,
      "export async function createGenerativeProvider(ctx) { return { run: async (v, qs) => qs.map(() => ({ lists: {} })), describe: () => ({ corpus: ctx.corpusDir }) }; }\n",
    );
    const provider = await loadGenerativeProvider(good, { corpusDir: "/c", dataRoot: "/d", log: () => {} });
    assert.deepEqual(await provider.run("uniform", queries, { corpusIds: ["A"], embedder: "e" }), [{ lists: {} }]);
    assert.deepEqual(provider.describe?.("uniform"), { corpus: "/c" });
    const bad = path.join(dir, "bad.mjs");
    writeFileSync(bad, "export const nothing = 1;\n");
    await assert.rejects(loadGenerativeProvider(bad, { corpusDir: "/c", dataRoot: "/d", log: () => {} }), /does not export a createGenerativeProvider/);
    await assert.rejects(loadGenerativeProvider(path.join(dir, "missing.mjs"), { corpusDir: "/c", dataRoot: "/d", log: () => {} }), /cannot load the module/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
