import assert from "node:assert/strict";
import { before, describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import type { ApiErrorBody } from "@/lib/http";
import { referenceIndex } from "@/lib/retrieve";
import { HAND_CORPUS, useHandGraphStore } from "@/lib/retrieve/testing";
import { citationCounts, handleLineageRequest, priorAndDerivative, type LineageResult } from "./lineage";

test("prior works: cited by two or more results; derivative: citing two or more; the set and the query left out", () => {
  // Results 1, 2, 3. 1, 2 and 3 cite 0; 1 and 2 cite 6; 3 cites 7 only; 4 cites 1 and 2; 5 cites 1, 2 and 3;
  // 8 (the query) cites 1 and 0; 2 cites 1 (inside the set).
  const refs = referenceIndex(9, [
    [1, 0],
    [2, 0],
    [3, 0],
    [1, 6],
    [2, 6],
    [3, 7],
    [4, 1],
    [4, 2],
    [5, 1],
    [5, 2],
    [5, 3],
    [8, 1],
    [8, 0],
    [2, 1],
  ]);
  const l = priorAndDerivative(refs, [1, 2, 3], new Set([8]));
  assert.deepEqual(l.prior, [
    { node: 0, count: 3 },
    { node: 6, count: 2 },
  ]);
  assert.deepEqual(l.derivative, [
    { node: 5, count: 3 },
    { node: 4, count: 2 },
  ]);
  assert.deepEqual(priorAndDerivative(refs, [1, 2, 3], new Set([8]), 1).prior, [{ node: 0, count: 3 }]);
  assert.deepEqual(priorAndDerivative(refs, []), { prior: [], derivative: [] });
});

test("citationCounts: each node's in-corpus citations", () => {
  const refs = referenceIndex(4, [
    [1, 0],
    [2, 0],
    [3, 0],
    [3, 1],
  ]);
  assert.deepEqual([...citationCounts(refs)], [3, 1, 0, 0]);
});

// POST /api/corpora/:name/lineage on web Request/Response objects (the route only forwards here).
describe(`POST /api/corpora/:name/lineage (${testProvider})`, { concurrency: false }, () => {
  const t = useHandGraphStore("graft-lineage-api-");
  before(async () => {
    // H1, H2 and H3 cite H0; H4 cites H1 and H2.
    const rows = await t.db.paper.findMany({ where: { corpus: { name: HAND_CORPUS } }, select: { id: true, externalId: true, corpusId: true } });
    const id = (e: string) => rows.find((r) => r.externalId === e)!.id;
    const pairs = [
      ["H1", "H0"],
      ["H2", "H0"],
      ["H3", "H0"],
      ["H4", "H1"],
      ["H4", "H2"],
    ];
    await t.db.citation.createMany({ data: pairs.map(([a, b]) => ({ corpusId: rows[0].corpusId, citingId: id(a), citedId: id(b) })) });
  });
  const post = (corpus: string, body: unknown) =>
    handleLineageRequest(
      t.db,
      corpus,
      new Request(`http://graft.test/api/corpora/${corpus}/lineage`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );

  test("prior and derivative works with counts, titles and each paper's citation count", async () => {
    const res = await post(HAND_CORPUS, { papers: ["H1", "H2", "H3"] });
    assert.equal(res.status, 200);
    const r = (await res.json()) as LineageResult;
    assert.equal(r.corpus, HAND_CORPUS);
    assert.deepEqual(r.prior, [{ externalId: "H0", title: "Hand paper 0", year: 2018, venue: "ACL", count: 3 }]);
    assert.deepEqual(r.derivative, [{ externalId: "H4", title: "Hand paper 4", year: 2019, venue: "ACL", count: 2 }]);
    assert.deepEqual(r.citationCounts, { H1: 1, H2: 1, H3: 0 });
    // The query left out: H0 is not its own prior work.
    const without = (await (await post(HAND_CORPUS, { papers: ["H1", "H2", "H3"], exclude: ["H0", "not-a-node"] })).json()) as LineageResult;
    assert.deepEqual(without.prior, []);
  });

  test("errors carry codes: a bad body and unknown ids 400, no such corpus 404", async () => {
    const codeOf = async (res: Response) => [res.status, ((await res.json()) as ApiErrorBody).error.code];
    assert.deepEqual(await codeOf(await post(HAND_CORPUS, { papers: [] })), [400, "invalid_request"]);
    assert.deepEqual(await codeOf(await post(HAND_CORPUS, { papers: ["H1"], limit: 0 })), [400, "invalid_request"]);
    assert.deepEqual(await codeOf(await post(HAND_CORPUS, "{not json")), [400, "invalid_request"]);
    const unknown = await post(HAND_CORPUS, { papers: ["H1", "nope"] });
    assert.equal(unknown.status, 400);
    assert.match(((await unknown.json()) as ApiErrorBody).error.message, /1 paper is not in corpus "hand": "nope"/);
    assert.deepEqual(await codeOf(await post("no-such-corpus", { papers: ["H1"] })), [404, "not_found"]);
  });
});
