import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { sharedDataDir } from "@/lib/paths";
import { encodeDocIdTokens } from "@/lib/text";
import { llmConfig } from "./config";
import { FACET_JSON_SCHEMA, SYSTEM_PROMPT, TRUNCATION_MARKER, USER_PROMPT_TEMPLATE, buildFacetRequest, paperText, truncateToTokens } from "./prompt";

// The paper's source sits beside the shared data directory (../shared/spec).
const PAPER_TEX = path.join(path.dirname(sharedDataDir()), "spec", "graft-paper.tex");

test("the prompt is the paper's, verbatim", { skip: !canRead(PAPER_TEX) && "paper source not present" }, () => {
  const tex = readFileSync(PAPER_TEX, "utf8");
  const box = /\\begin\{promptbox\}\[title=Facet extraction prompt\]\n([\s\S]*?)\n\\end\{promptbox\}/.exec(tex);
  assert.ok(box, "prompt box found in the paper");
  assert.equal(box[1], `System:\n${SYSTEM_PROMPT}\n\nUser:\n${USER_PROMPT_TEMPLATE}`);
});

test("paper text: title, authors, abstract, body under headings; empty parts left out", () => {
  assert.equal(
    paperText({ title: " T ", abstract: "A.", body: "1 Introduction\nB.", authors: ["Ada L.", " ", "Alan T."] }),
    "Title: T\nAuthors: Ada L., Alan T.\n\nAbstract\nA.\n\n1 Introduction\nB.",
  );
  assert.equal(paperText({ title: "T", abstract: "", body: null }), "Title: T");
});

test("under the budget nothing is cut", () => {
  const text = "Title: Short\n\nAbstract\nWe study things.";
  assert.deepEqual(truncateToTokens(text, 100), { text, truncated: false });
  // Over the byte shortcut but within the token budget: still not cut.
  const words = "word ".repeat(60).trim();
  assert.ok(Buffer.byteLength(words) > 100 && encodeDocIdTokens(words).length <= 100);
  assert.deepEqual(truncateToTokens(words, 100), { text: words, truncated: false });
});

test("over the budget the head is kept, the marker appended, and the total fits", () => {
  const text = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} about parsing.`).join(" ");
  for (const budget of [32, 100, 1000]) {
    const out = truncateToTokens(text, budget);
    assert.equal(out.truncated, true);
    assert.ok(out.text.endsWith(`\n\n${TRUNCATION_MARKER}`));
    const head = out.text.slice(0, -(TRUNCATION_MARKER.length + 2));
    assert.ok(text.startsWith(head), "kept text is a prefix of the paper");
    const tokens = encodeDocIdTokens(out.text).length;
    assert.ok(tokens <= budget && tokens >= budget - 3, `budget ${budget}: ${tokens} tokens`);
  }
});

test("a cut inside a multi-byte character leaves no replacement character", () => {
  const text = "Title: 中文论文\n\n" + "深度学习🙂模型。".repeat(300);
  for (const budget of [40, 41, 42, 43, 77]) {
    const out = truncateToTokens(text, budget);
    assert.ok(!out.text.includes("\uFFFD"), `budget ${budget}`);
    assert.ok(text.startsWith(out.text.slice(0, -(TRUNCATION_MARKER.length + 2))));
  }
});

test("very long texts are cut from an early prefix with the same result", () => {
  const text = "alpha beta gamma delta ".repeat(20_000); // 460k chars
  const out = truncateToTokens(text, 50);
  assert.equal(out.truncated, true);
  assert.ok(encodeDocIdTokens(out.text).length <= 50);
  assert.ok(out.text.startsWith("alpha beta gamma delta alpha"));
});

test("request: model, system + user messages with the paper, strict json_schema response format", () => {
  const config = llmConfig({ model: "gpt-5-mini", maxInputTokens: 1000 });
  const { body, truncated } = buildFacetRequest({ title: "Graph RRF", abstract: "We fuse $& and $' lists." }, config);
  assert.equal(truncated, false);
  assert.equal(body.model, "gpt-5-mini");
  assert.deepEqual(body.messages[0], { role: "system", content: SYSTEM_PROMPT });
  assert.equal(body.messages[1].role, "user");
  // "$&" must not be expanded as a replacement pattern.
  assert.ok(body.messages[1].content.endsWith("Paper:\nTitle: Graph RRF\n\nAbstract\nWe fuse $& and $' lists."));
  assert.deepEqual(body.response_format, {
    type: "json_schema",
    json_schema: { name: "paper_facets", strict: true, schema: FACET_JSON_SCHEMA },
  });
  assert.deepEqual(FACET_JSON_SCHEMA.required, ["problems", "methods", "results", "contributions"]);
  assert.equal(FACET_JSON_SCHEMA.additionalProperties, false);
  for (const f of FACET_JSON_SCHEMA.required) {
    assert.deepEqual(FACET_JSON_SCHEMA.properties[f], { type: "array", items: { type: "string" } });
  }
  assert.equal("reasoning_effort" in body, false);
  assert.equal("temperature" in body, false);
  const withEffort = buildFacetRequest({ title: "T", abstract: "" }, { ...config, reasoningEffort: "minimal" });
  assert.equal(withEffort.body.reasoning_effort, "minimal");
});

function canRead(file: string): boolean {
  try {
    readFileSync(file);
    return true;
  } catch {
    return false;
  }
}
