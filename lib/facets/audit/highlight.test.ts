import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { FacetAudit } from "@/components/facet-audit";
import { FACETS, type Facet } from "@/lib/corpus";
import { segmentText } from "./highlight";
import type { AuditedItem, PaperAuditView } from "./read";

test("segmentText: cuts at every boundary, lists covering marks, clips and drops empty spans", () => {
  const text = "abcdefghij";
  const segs = segmentText(text, [
    { start: 2, end: 6, data: "x" },
    { start: 4, end: 8, data: "y" },
    { start: 9, end: 40, data: "z" },
    { start: 5, end: 5, data: "empty" },
    { start: -3, end: 1, data: "w" },
  ]);
  assert.deepEqual(
    segs.map((s) => [s.text, s.marks.map((m) => m.data)]),
    [
      ["a", ["w"]],
      ["b", []],
      ["cd", ["x"]],
      ["ef", ["x", "y"]],
      ["gh", ["y"]],
      ["i", []],
      ["j", ["z"]],
    ],
  );
  assert.equal(segs.map((s) => s.text).join(""), text, "the segments rebuild the text");
  assert.deepEqual(
    segmentText("abc", []).map((s) => s.text),
    ["abc"],
  );
  assert.deepEqual(segmentText("", [{ start: 0, end: 3, data: 1 }]), []);
});

const ABSTRACT = "Parsing Hindi is hard. We build a treebank. Accuracy rises.";

function item(id: number, text: string, over: Partial<AuditedItem> = {}): AuditedItem {
  return { id, position: 0, text, grounding: 0.9, evidence: [], flags: [], specificity: 1, audited: true, ...over };
}

function view(): PaperAuditView {
  const facets = Object.fromEntries(FACETS.map((f) => [f, [] as AuditedItem[]])) as Record<Facet, AuditedItem[]>;
  facets.problems.push(
    item(1, "Hindi parsing is hard.", {
      grounding: 0.91,
      evidence: [
        { text: "Parsing Hindi is hard.", score: 0.91, start: 0, end: 22, source: "abstract" },
        { text: "Accuracy rises.", score: 0.3, start: 44, end: 59, source: "abstract" },
      ],
    }),
  );
  facets.contributions.push(
    item(2, "The paper presents a treebank.", {
      grounding: 0.62,
      flags: ["meta", "ungrounded"],
      evidence: [{ text: "Hindi treebank", score: 0.62, start: 0, end: 14, source: "title" }],
    }),
  );
  facets.methods.push(item(3, "A transition parser.", { audited: false, grounding: null, specificity: null }));
  return {
    paperId: 7,
    title: "Hindi treebank",
    abstract: ABSTRACT,
    fullText: null,
    facets,
    facetFlags: { problems: [], methods: [], results: ["empty-facet"], contributions: ["meta-facet"] },
    audited: 2,
    total: 3,
    auditedAt: "2026-11-22T06:00:00.000Z",
  };
}

test("FacetAudit renders best evidence marks in the abstract and title, grounding scores and flags", () => {
  const html = renderToStaticMarkup(createElement(FacetAudit, { audit: view() }));
  assert.match(html, /2 of 3 items audited, mean grounding 0\.77/);
  // Overview: each item's best passage only (rank 1), in its facet's colour.
  assert.match(html, /<mark[^>]*data-facet="problems" data-rank="1"[^>]*>Parsing Hindi is hard\.<\/mark>/);
  assert.doesNotMatch(html, /<mark[^>]*>Accuracy rises\.<\/mark>/, "rank-2 evidence is shown only for a selected item");
  assert.match(html, /data-testid="facet-audit-title"[^>]*><mark[^>]*data-facet="contributions"[^>]*>Hindi treebank<\/mark>/);
  assert.match(html, /data-testid="audit-grounding"[^>]*>0\.91</);
  assert.match(html, /data-testid="audit-grounding"[^>]*>not audited</);
  assert.match(html, /data-flag="meta"[^>]*>meta-description/);
  assert.match(html, /data-flag="ungrounded"/);
  assert.match(html, /data-testid="facet-flag"[^>]*>no items</);
  assert.match(html, /data-testid="facet-flag"[^>]*>every item is meta-descriptive</);
  assert.equal((html.match(/data-testid="audit-item"/g) ?? []).length, 3);
  assert.match(html, /aria-pressed="false"/);
});

test("FacetAudit with nothing audited shows one line on how to audit, not the block of unaudited items", () => {
  const v = view();
  v.audited = 0;
  for (const f of FACETS) v.facets[f] = v.facets[f].map((i) => ({ ...i, audited: false, grounding: null, evidence: [], flags: [] }));
  const html = renderToStaticMarkup(createElement(FacetAudit, { audit: v }));
  assert.match(html, /data-testid="facet-audit-pending"/);
  assert.match(html, /not run for this paper yet/);
  assert.match(html, /npm run graft -- audit<\/code>/);
  assert.doesNotMatch(html, /not audited|data-testid="audit-item"|<mark|data-testid="facet-audit"/);
  const other = renderToStaticMarkup(createElement(FacetAudit, { audit: v, corpus: "acl-anthology" }));
  assert.match(other, /npm run graft -- audit --corpus acl-anthology<\/code>/);
});
