import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { MAX_SEEDS } from "@/lib/query";
import { exploreHref, MAX_EXPLORER_SEEDS, readParams, readSeeds, writeParams } from "./explore-state";
import { busyRetryDelay, fetchRelated, hashString, inputKey, RelatedError, requestInit, retryWhenBusy, seedsRequestInit, splitLines } from "./related-client";

describe("explorer URL state", () => {
  test("defaults for a bare URL, and a bare URL back", () => {
    const p = readParams(new URLSearchParams());
    assert.equal(p.corpus, "acl-citegraph");
    assert.equal(p.paper, null);
    assert.equal(p.retriever, "hybrid");
    assert.equal(p.fusion, "auto");
    assert.equal(p.k, 20);
    assert.deepEqual(p.facets, ["problems", "methods", "results", "contributions"]);
    assert.equal(p.sort, "score");
    assert.equal(p.view, "list");
    assert.equal(writeParams(p).toString(), "");
  });

  test("round-trips every option, facets in canonical order", () => {
    const sp = new URLSearchParams(
      "paper=P19-1&retriever=bm25&fusion=rrf&k=50&facets=results,problems&yearFrom=2015&yearTo=2019&venue=ACL&sort=year&view=graph",
    );
    const p = readParams(sp);
    assert.deepEqual(p.facets, ["problems", "results"]);
    assert.equal(
      writeParams(p).toString(),
      "paper=P19-1&retriever=bm25&fusion=rrf&k=50&facets=problems%2Cresults&yearFrom=2015&yearTo=2019&venue=ACL&sort=year&view=graph",
    );
  });

  test("malformed values fall back instead of breaking the page", () => {
    const p = readParams(new URLSearchParams("retriever=magic&k=1000&facets=nope&yearFrom=abc&sort=random&view=3d"));
    assert.equal(p.retriever, "hybrid");
    assert.equal(p.k, 20);
    assert.equal(p.facets.length, 4);
    assert.equal(p.yearFrom, undefined);
    assert.equal(p.sort, "score");
    assert.equal(p.view, "list");
    // A reversed range is read the right way round.
    const r = readParams(new URLSearchParams("yearFrom=2020&yearTo=2010"));
    assert.deepEqual([r.yearFrom, r.yearTo], [2010, 2020]);
  });

  test("earlier / later work: ?direction= round-trips, both by default and left out of the URL, anything else is both", () => {
    assert.equal(readParams(new URLSearchParams()).direction, "both");
    for (const d of ["earlier", "later"] as const) {
      const p = readParams(new URLSearchParams(`paper=P1&direction=${d}`));
      assert.equal(p.direction, d);
      assert.equal(writeParams(p).toString(), `paper=P1&direction=${d}`);
    }
    assert.equal(readParams(new URLSearchParams("direction=sideways")).direction, "both");
    assert.equal(writeParams(readParams(new URLSearchParams("paper=P1&direction=both"))).toString(), "paper=P1");
  });

  test("explore links for corpus papers encode the id", () => {
    assert.equal(exploreHref("acl-citegraph", "http://x.org/a b.pdf"), "/?paper=http%3A%2F%2Fx.org%2Fa+b.pdf");
    assert.equal(exploreHref("other", "P1", { view: "graph" }), "/?corpus=other&paper=P1&view=graph");
  });
});

describe("related-papers client", () => {
  const options = { k: 10, retriever: "dense-graph" as const, fusion: "graph-rrf" as const, facets: ["methods" as const], yearFrom: 2018 };

  test("JSON bodies for paper ids and text, with the options at the top level", async () => {
    const init = requestInit({ kind: "paper", corpus: "c", paperId: "P1" }, options);
    assert.equal(init.method, "POST");
    assert.deepEqual(JSON.parse(init.body as string), {
      corpus: "c",
      paperId: "P1",
      k: 10,
      retriever: "dense-graph",
      fusion: "graph-rrf",
      facets: ["methods"],
      yearFrom: 2018,
    });
    const text = requestInit({ kind: "text", corpus: "c", text: "hello" }, { ...options, venue: "ACL" });
    assert.equal(JSON.parse(text.body as string).text, "hello");
    assert.equal(JSON.parse(text.body as string).venue, "ACL");
  });

  test("multipart for files, facets as a comma list", async () => {
    const file = new File([new Uint8Array([37, 80, 68, 70])], "paper.pdf", { type: "application/pdf" });
    const init = requestInit({ kind: "file", corpus: "c", file }, { ...options, facets: ["methods", "results"] });
    const form = init.body as FormData;
    assert.equal(form.get("facets"), "methods,results");
    assert.equal(form.get("k"), "10");
    assert.equal((form.get("file") as File).name, "paper.pdf");
    assert.equal(init.headers, undefined, "the browser sets the multipart boundary");
  });

  test("direction goes to the API as JSON and form fields when it narrows, not when it is both", () => {
    const paper = { kind: "paper", corpus: "c", paperId: "P1" } as const;
    assert.equal(JSON.parse(requestInit(paper, { ...options, direction: "later" }).body as string).direction, "later");
    assert.equal("direction" in JSON.parse(requestInit(paper, { ...options, direction: "both" }).body as string), false);
    const file = new File(["Title\n\nAbstract"], "paper.txt", { type: "text/plain" });
    assert.equal((requestInit({ kind: "file", corpus: "c", file }, { ...options, direction: "earlier" }).body as FormData).get("direction"), "earlier");
  });

  test("NDJSON lines split on newlines, keeping an unfinished tail", () => {
    const { lines, rest } = splitLines('{"step":"parse","message":"a"}\n\n{"step":"fuse","message":"b"}\n{"resu');
    assert.deepEqual(lines, [
      { step: "parse", message: "a" },
      { step: "fuse", message: "b" },
    ]);
    assert.equal(rest, '{"resu');
  });

  test("cache keys tell inputs apart", () => {
    assert.notEqual(hashString("a"), hashString("b"));
    assert.equal(inputKey({ kind: "text", corpus: "c", text: "abc" }), inputKey({ kind: "text", corpus: "c", text: "abc" }));
    assert.notEqual(inputKey({ kind: "text", corpus: "c", text: "abc" }), inputKey({ kind: "text", corpus: "d", text: "abc" }));
    assert.equal(inputKey({ kind: "paper", corpus: "c", paperId: "P1" }), "paper:c:P1");
  });

  test("several seeds: one JSON body with the seeds and the options", () => {
    const init = seedsRequestInit("c", ["A", "B"], { k: 20, retriever: "hybrid", fusion: "auto", facets: ["methods"], yearFrom: 2015 });
    assert.deepEqual(JSON.parse(init.body as string), {
      corpus: "c",
      seeds: ["A", "B"],
      k: 20,
      retriever: "hybrid",
      fusion: "auto",
      facets: ["methods"],
      yearFrom: 2015,
    });
  });
});

describe("seeds in the URL", () => {
  test("?seeds=A,B,C round-trips, trimmed and deduplicated; none by default", () => {
    assert.deepEqual(readParams(new URLSearchParams()).seeds, []);
    const p = readParams(new URLSearchParams("seeds= A,B,,A ,C"));
    assert.deepEqual(p.seeds, ["A", "B", "C"]);
    assert.equal(writeParams(p).toString(), "seeds=A%2CB%2CC");
    assert.deepEqual(readParams(writeParams({ ...p, paper: "P1" })).seeds, ["A", "B", "C"]);
  });

  test("at most 20 seeds", () => {
    const ids = Array.from({ length: 25 }, (_, i) => `P${i}`);
    assert.deepEqual(readSeeds(ids.join(",")), ids.slice(0, MAX_EXPLORER_SEEDS));
    assert.equal(MAX_EXPLORER_SEEDS, MAX_SEEDS);
  });
});

describe("a busy server", () => {
  test("a 503 busy carries its Retry-After, and the query is asked again after it, twice at most; other errors are not retried", async () => {
    const real = globalThis.fetch;
    globalThis.fetch = (async () =>
      new Response(JSON.stringify({ error: { code: "busy", message: "busy" } }), {
        status: 503,
        headers: { "content-type": "application/json", "retry-after": "2" },
      })) as typeof fetch;
    try {
      const err = await fetchRelated({ kind: "paper", corpus: "c", paperId: "P1" } as never, {} as never, () => {}).catch((e: unknown) => e);
      assert.ok(err instanceof RelatedError);
      assert.equal(err.code, "busy");
      assert.equal(err.retryAfterSec, 2);
      assert.equal(retryWhenBusy(0, err), true);
      assert.equal(retryWhenBusy(2, err), false);
      assert.equal(busyRetryDelay(0, err), 2000);
    } finally {
      globalThis.fetch = real;
    }
    assert.equal(retryWhenBusy(0, new RelatedError(422, "no_facets", "no facets")), false);
    assert.equal(busyRetryDelay(0, new RelatedError(503, "busy", "busy")), 1000, "no Retry-After: a second");
  });
});
