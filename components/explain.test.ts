import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import type { CreditedFacet } from "@/lib/query";
import { chipMeaning, foundThrough, FUSION_PLAIN, FUSION_TECHNICAL, FusionExplainer, ordinal } from "./explain";
import { FacetRankChip } from "./facets";
import { WhyRelated } from "./explore/result-list";

const credited = (facet: CreditedFacet["facet"], rank: number, weight: number): CreditedFacet => ({
  facet,
  rank,
  weight,
  queryItem: null,
  docId: null,
  evidence: { queryItem: "q item", paperItem: "p item", similarity: 0.81 },
});

test("chips and credits read as sentences", () => {
  assert.deepEqual([1, 2, 3, 4, 11, 12, 13, 19, 21, 22, 101, 111].map(ordinal), [
    "1st",
    "2nd",
    "3rd",
    "4th",
    "11th",
    "12th",
    "13th",
    "19th",
    "21st",
    "22nd",
    "101st",
    "111th",
  ]);
  assert.equal(foundThrough([{ facet: "problems", rank: 19 }]), "Found through its problems (rank 19).");
  assert.equal(
    foundThrough([
      { facet: "problems", rank: 19 },
      { facet: "methods", rank: 2 },
      { facet: "results", rank: 7 },
    ]),
    "Found through its problems (rank 19), methods (rank 2) and results (rank 7).",
  );
  assert.equal(chipMeaning("methods", 2), "Found through its methods: the 2nd paper the methods facet found");
  const chip = renderToStaticMarkup(createElement(FacetRankChip, { facet: "problems", rank: 19, weight: 0.123 }));
  assert.match(chip, /title="Found through its problems: the 19th paper the problems facet found"/);
  assert.match(chip, />#19</);
  assert.doesNotMatch(chip, /weight|0\.123/);
});

test("the fusion note: a plain sentence first, the formula and the server's note one click away", () => {
  for (const f of ["graph-rrf", "rrf", "corroboration-rrf", "lm-score"] as const) {
    assert.doesNotMatch(FUSION_PLAIN[f], /RRF|w_f|α|rank_f|DocID/, f);
    const html = renderToStaticMarkup(createElement(FusionExplainer, { fusion: f, note: f === "corroboration-rrf" ? "no stored edges w_f(q, d)" : null }));
    const details = html.indexOf("<details");
    assert.ok(details > html.indexOf(FUSION_PLAIN[f].slice(0, 30).replace(/'/g, "&#x27;")), f);
    assert.ok(html.indexOf(FUSION_TECHNICAL[f].slice(0, 12)) > details, `${f}: the formula is inside <details>`);
  }
  assert.match(FUSION_TECHNICAL["graph-rrf"], /w_f\(q, d\) = α·s \+ β·c/);
  const unseen = renderToStaticMarkup(createElement(FusionExplainer, { fusion: "corroboration-rrf", note: "no stored edges w_f(q, d)" }));
  assert.match(unseen.slice(unseen.indexOf("<details")), /no stored edges/);
});

test("why related: the sentence, the evidence, then the numbers (rank, weight, w_f) behind a click", () => {
  const html = renderToStaticMarkup(
    createElement(WhyRelated, { facets: [credited("problems", 19, 0.4567), credited("methods", 2, 0.3)], fusion: "graph-rrf" }),
  );
  assert.match(html, /data-testid="why-summary"[^>]*>Found through its problems \(rank 19\) and methods \(rank 2\)\./);
  const details = html.indexOf("<details");
  assert.ok(details > 0);
  assert.equal(html.indexOf("0.457"), html.indexOf("0.457", details), "weights only inside <details>");
  assert.match(html.slice(details), /w_f\(q, d\) = α·s \+ β·c/);
  assert.doesNotMatch(html.slice(0, details), /weight|w_f|α/);
});
