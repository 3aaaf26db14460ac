import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { FacetColumn, FacetColumns, FacetEntry } from "./facet-columns";

const entry = (dataId?: string) =>
  createElement(FacetEntry, { key: "A", paperId: "A", href: "/papers/c/A", title: "Paper A", rank: 3, dataId, children: createElement("p", null, "note") });

test("a facet column lists its papers under a heading that counts them", () => {
  const html = renderToStaticMarkup(createElement(FacetColumn, { facet: "methods", count: 1, empty: "None here.", children: entry() }));
  assert.match(html, /<section[^>]*aria-labelledby="per-facet-methods"[^>]*data-testid="per-facet-methods"/);
  assert.match(html, /<h3 id="per-facet-methods"[^>]*>.*Methods<span[^>]*>1<\/span><\/h3>/);
  assert.match(html, /<ol[^>]*><li[^>]*data-testid="per-facet-entry"[^>]*><span[^>]*>3<\/span>/);
  assert.match(html, /<a [^>]*title="Paper A" href="\/papers\/c\/A">Paper A<\/a><p>note<\/p>/);
  assert.doesNotMatch(html, /None here\./);
});

test("an empty column says why instead of showing an empty list", () => {
  const html = renderToStaticMarkup(createElement(FacetColumn, { facet: "results", count: 0, empty: "None here.", children: null }));
  assert.match(html, /<p[^>]*>None here\.<\/p><\/section>/);
  assert.doesNotMatch(html, /<ol/);
});

test("an entry carries data-id only when asked, and the grid widens to four columns only for four facets", () => {
  assert.match(renderToStaticMarkup(entry("A")), /data-id="A"/);
  assert.doesNotMatch(renderToStaticMarkup(entry()), /data-id/);
  const grid = (facets: ("problems" | "methods" | "results" | "contributions")[]) =>
    renderToStaticMarkup(createElement(FacetColumns, { facets, children: null }));
  assert.match(grid(["problems", "methods", "results", "contributions"]), /xl:grid-cols-4/);
  assert.doesNotMatch(grid(["problems", "methods"]), /xl:grid-cols-4/);
});
