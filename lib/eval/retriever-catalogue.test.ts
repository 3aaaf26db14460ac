/**
 * The one catalogue of offered retrievers (lib/query/types.ts) and the registry (lib/retrieve/index.ts)
 * agree: every offered name is registered, every registered retriever a user can name is offered, and
 * `graft eval --suite user-papers` has a row for each (issue 30: "registering a retriever once makes it
 * selectable in the API, CLI and UI and evaluated").
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { registeredRetrievers } from "@/lib/retrieve";
import { USER_PAPER_ROWS } from "./user-papers-suite";
import { RETRIEVER_INFO, RETRIEVER_NAMES, relatedOptions } from "@/lib/query";

test("every offered retriever is registered, and every registered one is offered", () => {
  const registered = new Set(registeredRetrievers());
  for (const name of RETRIEVER_NAMES) assert.ok(registered.has(name), `${name} is offered (lib/query/types.ts) but not registered (lib/retrieve/index.ts)`);
  // The evaluation registers variants of its own (the default without its second stage, …): measured, never served.
  const evaluationOnly = new Set(USER_PAPER_ROWS.map((r) => r.retriever).filter((n) => !(RETRIEVER_NAMES as readonly string[]).includes(n)));
  for (const name of registered)
    assert.ok((RETRIEVER_NAMES as readonly string[]).includes(name) || evaluationOnly.has(name), `${name} is registered but not offered in RETRIEVER_NAMES`);
});

test("every offered retriever has words for the explorer and a row in the evaluation", () => {
  for (const name of RETRIEVER_NAMES) {
    assert.ok(RETRIEVER_INFO[name].label.length > 0 && RETRIEVER_INFO[name].hint.length > 0, name);
    assert.ok(
      USER_PAPER_ROWS.some((r) => r.retriever === name),
      `graft eval has no user-paper row for ${name}`,
    );
  }
});

test("the request schema accepts exactly the offered names", () => {
  for (const name of RETRIEVER_NAMES) assert.equal(relatedOptions.parse({ retriever: name }).retriever, name);
  assert.throws(() => relatedOptions.parse({ retriever: "not-a-retriever" }), /retriever must be one of: hybrid, graft, dense-graph, bm25/);
});
