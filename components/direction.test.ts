import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { paperDirection, type RelatedPaper } from "@/lib/query";
import { DirectionChip, directionOf, directionTitle, type QueryYear } from "./direction";
import { readParams } from "./explore/explore-state";
import { FiltersPanel } from "./explore/filters-panel";
import { ResultList, type RankedPaper } from "./explore/result-list";

const PAPER: QueryYear = { value: 2018, source: "paper" };
const INFERRED: QueryYear = { value: 2018, source: "inferred" };

test("the per-facet lists' rule is relatedPapers' own", () => {
  for (const year of [null, 0, 2016, 2017, 2018, 2019, 2020])
    for (const q of [null, 2018]) assert.equal(directionOf(year, q), paperDirection(year, q), `year ${year}, query ${q}`);
});

test("the tooltip says what the direction is measured from: the paper's year or the inferred one", () => {
  assert.equal(directionTitle("earlier", PAPER), "Earlier work: published before the query paper's year 2018");
  assert.equal(directionTitle("later", INFERRED), "Later work: published after the year inferred from the closest papers, 2018");
  assert.equal(directionTitle("neither", PAPER), "Same year: published in the query paper's year 2018");
});

test("the chip: earlier and later work, a muted same year, nothing for undated papers or a query without a year", () => {
  const chip = (direction: "earlier" | "later" | "neither", year: number | null, queryYear: QueryYear | null) =>
    renderToStaticMarkup(createElement(DirectionChip, { direction, year, queryYear }));
  const earlier = chip("earlier", 2015, PAPER);
  assert.match(earlier, /data-direction="earlier"/);
  assert.match(earlier, /title="Earlier work: published before the query paper&#x27;s year 2018"/);
  assert.match(earlier, />earlier work</);
  assert.match(chip("later", 2020, INFERRED), /title="Later work: published after the year inferred from the closest papers, 2018"/);
  assert.match(chip("neither", 2018, PAPER), />same year</);
  assert.equal(chip("neither", null, PAPER), "");
  assert.equal(chip("earlier", 2015, null), "");
});

test("each result of the list carries its chip", () => {
  const paper = (id: string, year: number, direction: RelatedPaper["direction"], rank: number): RankedPaper => ({
    externalId: id,
    title: `Paper ${id}`,
    year,
    venue: null,
    authors: ["A. Author"],
    score: 1 / rank,
    direction,
    facets: [{ facet: "methods", rank, weight: 1, queryItem: "x", docId: null, evidence: null }],
    fusedRank: rank,
  });
  const html = renderToStaticMarkup(
    createElement(ResultList, { corpus: "c", results: [paper("A", 2015, "earlier", 1), paper("B", 2021, "later", 2)], queryYear: PAPER }),
  );
  assert.deepEqual(
    [...html.matchAll(/data-direction="(\w+)"/g)].map((m) => m[1]),
    ["earlier", "later"],
  );
});

test("the filters offer earlier / later / both, checked as the URL says, and not for several seeds", () => {
  const panel = (qs: string, directions?: boolean) =>
    renderToStaticMarkup(
      createElement(FiltersPanel, { params: readParams(new URLSearchParams(qs)), overview: undefined, graftUnavailable: null, onChange: () => {}, directions }),
    );
  const radios = (html: string) =>
    (html.match(/<input[^>]*name="direction"[^>]*>/g) ?? []).map((el) => `${/value="(\w+)"/.exec(el)![1]}${el.includes('checked=""') ? "*" : ""}`);
  assert.deepEqual(radios(panel("")), ["earlier", "later", "both*"]);
  const later = panel("direction=later");
  assert.deepEqual(radios(later), ["earlier", "later*", "both"]);
  assert.match(later, />Clear filters</, "a narrowed direction is a filter to clear");
  assert.deepEqual(radios(panel("direction=later", false)), []);
});
