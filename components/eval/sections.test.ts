import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { readCsfcubeReport } from "@/lib/eval";
import { userPapersSection } from "@/lib/eval/testing";
import { CsfcubeSection } from "./csfcube";
import { UserPapersSection } from "./user-papers";

const row = (method: string, r20: number, extra = {}) => ({
  method,
  label: `${method} row`,
  retriever: method,
  fusion: "auto",
  appliedFusion: "rrf",
  status: "ok" as const,
  "R@5": r20 / 2,
  "R@10": r20 / 1.5,
  "R@20": r20,
  "R@50": r20 * 1.2,
  ci: { "R@20": [r20 - 0.05, r20 + 0.05] as [number, number] },
  queries: 10,
  goldPairs: 20,
  latency: { meanMs: 480, p95Ms: 900 },
  ...extra,
});

const section = userPapersSection([
  {
    id: "ooc",
    title: "Papers users bring — set 1 (212 out-of-corpus papers)",
    gold: "the corpus papers each query paper cites",
    queries: 212,
    goldPairs: 424,
    sources: {
      llm: [
        row("hybrid", 0.557, { ratio: { value: 2.02, ci: [1.8, 2.3] } }),
        row("hybrid-with-generative", 0.55, { change: { from: "hybrid", value: -0.0126, ci: [-0.03, 0.01] } }),
        row("bm25", 0.276),
      ],
      offline: [row("hybrid", 0.526)],
    },
  },
  {
    id: "unseen",
    title: "Papers users bring — set 2 (539 citing test papers queried as unseen, report half)",
    gold: "the corpus papers each test-split paper cites",
    queries: 539,
    goldPairs: 3879,
    tuning: { queries: 425, goldPairs: 3000 },
    sources: {
      llm: [
        row("hybrid", 0.538, { tuning: { "R@20": 0.519, ci: [0.5, 0.54], queries: 425 } }),
        { method: "graft", label: "Graft alone", retriever: "graft", fusion: "auto", status: "not run", reason: "no model" },
      ],
    },
  },
]);

test("the user-paper tables: heading and R@20 sentence, both sets, both facet sources, ratios, the ablation's change, the tuning half", () => {
  const html = renderToStaticMarkup(createElement(UserPapersSection, { section }));
  assert.match(html, /<h2 id="user-papers"[^>]*>Related papers for papers you bring<\/h2>/);
  assert.match(html, /R@20 is the share of a query paper.{1,6}s gold that appears among the first 20 related papers/);
  assert.ok(html.indexOf("set 1 (212 out-of-corpus papers)") < html.indexOf("set 2 (539 citing test papers"));
  assert.equal((html.match(/LLM facets \(given with the paper\)/g) ?? []).length, 2 + 2, "a heading and a caption per table with LLM facets");
  assert.match(html, /Offline facets \(extracted from title \+ abstract/);
  assert.match(html, />0\.557<\/span><span[^>]*>\[0\.507, 0\.607\]/);
  assert.match(html, />2\.02×<\/span><span[^>]*>\[1\.80, 2\.30\]/);
  assert.match(html, />−1\.3%<\/span><span[^>]*>\[−3\.0%, \+1\.0%\]/);
  assert.match(html, />baseline</);
  assert.match(html, /R@20 tuning half/);
  assert.match(html, /0\.519<span[^>]*>\[0\.500, 0\.540\]/);
  assert.match(html, /480 \/ 900/);
  assert.match(html, /not run<\/span> no model/);
  assert.match(html, /never returned and never a seed/);
});

test("the CSFCube section: the fixture's table with its attribution; nothing without the file", () => {
  const state = readCsfcubeReport(fileURLToPath(new URL("../../lib/eval/fixtures/csfcube-dev.json", import.meta.url)));
  const html = renderToStaticMarkup(createElement(CsfcubeSection, { state }));
  assert.match(html, /Facet-aware relevance: CSFCube \(dev fold\)/);
  assert.match(html, /query’?'?s facet only|query&#x27;s facet only/);
  assert.match(html, />41\.50<\/span><span[^>]*> \/ 52\.25<\/span><span[^>]*>\[33\.10, 50\.20\]/);
  assert.match(html, /TF-IDF \(all 50\)/);
  assert.match(html, /CC BY-NC 4\.0: test fixture text\./);
  assert.equal(renderToStaticMarkup(createElement(CsfcubeSection, { state: { status: "missing", path: "x" } })), "");
  assert.match(
    renderToStaticMarkup(createElement(CsfcubeSection, { state: { status: "invalid", path: "x.json", message: "rows.0: bad" } })),
    /could not be read: rows\.0: bad/,
  );
});
