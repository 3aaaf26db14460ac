import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { testProvider } from "@/lib/db/testing";
import { FACETS } from "@/lib/corpus";
import { searchParamsObject } from "@/lib/http";
import { relatedOptions } from "./options";
import { handleRelatedRequest } from "./request";
import { unregisterRetriever } from "@/lib/retrieve";
import { HAND_CORPUS, handItem, useHandGraphStore } from "@/lib/retrieve/testing";
import type { QueryErrorBody, RelatedResult, RelatedStreamLine } from "./types";

// POST /api/related end to end on web Request/Response objects: body kinds, validation, size
// limits, status codes and the NDJSON progress stream (the route file only forwards to this).

const URL_ = "http://graft.test/api/related";
const postJson = (body: unknown, query = "") =>
  new Request(URL_ + query, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
const h0Facets = Object.fromEntries(FACETS.map((f) => [f, [handItem(f, 0)]]));

async function errorOf(res: Response): Promise<QueryErrorBody["error"]> {
  const body = (await res.json()) as QueryErrorBody;
  assert.ok(body.error, "an error body");
  return body.error;
}

describe(`POST /api/related (${testProvider})`, { concurrency: false }, () => {
  const t = useHandGraphStore("graft-query-api-");

  test("JSON with a corpus paper id answers the RelatedResult", async () => {
    const res = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", k: 5, retriever: "dense-graph", fusion: "graph-rrf" }));
    assert.equal(res.status, 200);
    const r = (await res.json()) as RelatedResult;
    assert.equal(r.query.source, "corpus");
    assert.equal(r.query.externalId, "H0");
    assert.equal(r.retriever, "dense-graph");
    assert.ok(r.results.length > 0);
    assert.ok(r.results.every((x) => x.facets.length > 0 && x.facets.every((f) => f.weight > 0)));
  });

  test("JSON with a paper record, and multipart with a .json file, are unseen papers", async () => {
    const res = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paper: { title: "Unseen", facets: h0Facets }, fusion: "rrf" }));
    assert.equal(res.status, 200);
    const r = (await res.json()) as RelatedResult;
    assert.equal(r.query.source, "record");
    assert.equal(r.query.inGraph, false);
    assert.ok(r.results.length > 0);

    const form = new FormData();
    form.set("file", new File([JSON.stringify({ title: "Unseen", facets: h0Facets })], "paper.json", { type: "application/json" }));
    form.set("corpus", HAND_CORPUS);
    form.set("k", "2");
    form.set("yearFrom", ""); // an empty form field means "not set"
    const up = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", body: form }));
    assert.equal(up.status, 200);
    const u = (await up.json()) as RelatedResult;
    assert.equal(u.query.source, "record");
    assert.ok(u.results.length > 0 && u.results.length <= 2);
  });

  test("candidates: the body's list is re-ranked, every candidate answered; unknown ids are a 400", async () => {
    const res = await handleRelatedRequest(
      t.db,
      postJson({ corpus: HAND_CORPUS, paperId: "H0", candidates: ["H3", "H1", "H0"], retriever: "dense-graph", fusion: "rrf" }),
    );
    assert.equal(res.status, 200);
    const r = (await res.json()) as RelatedResult;
    assert.deepEqual(r.results.map((x) => x.externalId).sort(), ["H1", "H3"]);
    assert.deepEqual(r.candidates?.excluded, ["H0"], "the query itself is never its own result");
    const bad = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", candidates: ["H1", "Z9"] }));
    assert.equal(bad.status, 400);
    assert.match((await errorOf(bad)).message, /"Z9"/);
  });

  test("direction: earlier or later work only, from the JSON body, form fields and the query string; anything else is a 400", async () => {
    // H0 is from 2018: H3 (2017) is earlier work, H1 (2019) and H2 (2020) later.
    const ask = async (direction?: string) => {
      const res = await handleRelatedRequest(
        t.db,
        postJson({ corpus: HAND_CORPUS, paperId: "H0", retriever: "dense-graph", fusion: "graph-rrf", ...(direction ? { direction } : {}) }),
      );
      assert.equal(res.status, 200);
      return (await res.json()) as RelatedResult;
    };
    const both = await ask();
    assert.deepEqual(both.query.year, { value: 2018, source: "paper" });
    const expected = (r: { year: number | null }) => (r.year! < 2018 ? "earlier" : r.year! > 2018 ? "later" : "neither");
    for (const r of both.results) assert.equal(r.direction, expected(r), r.externalId);
    for (const d of ["earlier", "later"] as const) {
      const only = await ask(d);
      const want = both.results.filter((r) => r.direction === d).map((r) => r.externalId);
      assert.ok(want.length > 0, `the hand graph reaches ${d} work`);
      assert.deepEqual(
        only.results.map((r) => r.externalId),
        want,
        `${d}: the same papers in the same order`,
      );
    }

    const form = new FormData();
    form.set("file", new File([JSON.stringify({ title: "Unseen", year: 2018, facets: h0Facets })], "paper.json", { type: "application/json" }));
    form.set("corpus", HAND_CORPUS);
    form.set("direction", "later");
    const up = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", body: form }));
    assert.equal(up.status, 200);
    const u = (await up.json()) as RelatedResult;
    assert.deepEqual(u.query.year, { value: 2018, source: "paper" }, "the record's year");
    assert.ok(u.results.length > 0 && u.results.every((r) => r.direction === "later" && r.year! > 2018));

    // GET /api/papers/:corpus/:id/related reads its options so.
    assert.equal(relatedOptions.parse(searchParamsObject(new URLSearchParams("direction=earlier&k=5"))).direction, "earlier");
    assert.equal(relatedOptions.parse(searchParamsObject(new URLSearchParams("direction="))).direction, "both");

    const bad = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", direction: "sideways" }));
    assert.equal(bad.status, 400);
    const e = await errorOf(bad);
    assert.match(e.message, /direction must be one of: both, earlier, later/);
    assert.deepEqual(
      e.issues?.map((i) => i.path),
      ["direction"],
    );
  });

  test("validation: 415, 400 and 404 with specific messages", async () => {
    const plain = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", headers: { "content-type": "text/plain" }, body: "hello" }));
    assert.equal(plain.status, 415);
    assert.equal((await errorOf(plain)).code, "unsupported_media_type");

    const broken = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", headers: { "content-type": "application/json" }, body: "{nope" }));
    assert.equal(broken.status, 400);
    assert.equal((await errorOf(broken)).code, "invalid_json");

    const two = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", text: "x" }));
    assert.equal(two.status, 400);
    assert.match((await errorOf(two)).message, /exactly one of paperId, text or paper/);

    const typo = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", year_from: 2019 }));
    assert.equal(typo.status, 400);
    assert.match((await errorOf(typo)).message, /year_from/);

    const badK = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", k: 0 }));
    const e = await errorOf(badK);
    assert.equal(badK.status, 400);
    assert.deepEqual(
      e.issues?.map((i) => i.path),
      ["k"],
    );

    const missing = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "NOPE" }));
    assert.equal(missing.status, 404);

    const noFile = new FormData();
    noFile.set("k", "3");
    const nf = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", body: noFile }));
    assert.equal(nf.status, 400);
    assert.match((await errorOf(nf)).message, /"file"/);
  });

  test("input problems keep lib/input's codes: 422 for a record without text, 413 over the upload limit", async () => {
    const thin = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paper: { title: "Only a title" } }));
    assert.equal(thin.status, 422);
    assert.equal((await errorOf(thin)).code, "too_short");

    // Upload limit 1 KB: refused as soon as the body passes it, whatever the file holds.
    const big = new FormData();
    big.set("file", new File([new Uint8Array(600 * 1024)], "big.pdf", { type: "application/pdf" }));
    const res = await handleRelatedRequest(t.db, new Request(URL_, { method: "POST", body: big }), { maxBytes: 1024 });
    assert.equal(res.status, 413);
    const err = await errorOf(res);
    assert.equal(err.code, "too_large");
    assert.match(err.message, /1 KB upload limit/);
  });

  test("an unknown corpus is 404 not_found; a known corpus without a graph build is 409 not_ready", async () => {
    const unknown = await handleRelatedRequest(t.db, postJson({ corpus: "no-such-corpus", paperId: "H0" }));
    assert.equal(unknown.status, 404);
    const e = await errorOf(unknown);
    assert.equal(e.code, "not_found");
    assert.match(e.message, /no corpus named "no-such-corpus"/);
    const streamed = await handleRelatedRequest(t.db, postJson({ corpus: "no-such-corpus", text: "x".repeat(200) }, "?stream=1"));
    const last = JSON.parse((await streamed.text()).trim().split("\n").at(-1)!) as QueryErrorBody;
    assert.equal(last.error.code, "not_found");

    await t.db.corpus.create({ data: { name: "empty-corpus" } });
    try {
      const unbuilt = await handleRelatedRequest(t.db, postJson({ corpus: "empty-corpus", paperId: "H0" }));
      assert.equal(unbuilt.status, 409);
      const u = await errorOf(unbuilt);
      assert.equal(u.code, "not_ready");
      assert.match(u.message, /build --stage graph --corpus empty-corpus/);
    } finally {
      await t.db.corpus.delete({ where: { name: "empty-corpus" } });
    }
  });

  test("retriever graft without a model is a 409", async () => {
    unregisterRetriever("graft"); // this store has no model either way; test the registry's answer
    const res = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "H0", retriever: "graft" }));
    assert.equal(res.status, 409);
    assert.equal((await errorOf(res)).code, "not_ready");
  });

  test("?stream=1: NDJSON steps as work proceeds, then the result; errors as the last line", async () => {
    const res = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paper: { title: "Unseen", facets: h0Facets } }, "?stream=1"));
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /ndjson/);
    const lines = (await res.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RelatedStreamLine);
    const steps = lines.flatMap((l) => ("step" in l ? [l.step] : []));
    assert.deepEqual(steps, ["upload", "parse", "embed", "retrieve", "fuse"]);
    const last = lines[lines.length - 1];
    assert.ok("result" in last && last.result.results.length > 0);

    const bad = await handleRelatedRequest(t.db, postJson({ corpus: HAND_CORPUS, paperId: "NOPE" }, "?stream=1"));
    const badLines = (await bad.text())
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l) as RelatedStreamLine);
    const end = badLines[badLines.length - 1];
    assert.ok("error" in end && end.error.code === "not_found", JSON.stringify(end));

    // Refusable without reading the body: a real status even when streaming.
    const plain = await handleRelatedRequest(t.db, new Request(`${URL_}?stream=1`, { method: "POST", headers: { "content-type": "text/plain" }, body: "x" }));
    assert.equal(plain.status, 415);
  });
});
