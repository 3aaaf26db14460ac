import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { venueGroups, VenueOptions, venueSeries } from "./venues";

const TACL = (v: number) => `Transactions of the Association for Computational Linguistics, Volume ${v}`;

test("venues of one series are grouped and told apart; none reads the same as another", () => {
  const venues = [
    ...[1, 2, 3, 4, 5, 6, 7].map((v) => ({ venue: TACL(v), papers: 10 + v })),
    { venue: "Proceedings of the 57th Annual Meeting of the Association for Computational Linguistics", papers: 507 },
    { venue: "Proceedings of the 56th Annual Meeting of the Association for Computational Linguistics (Volume 1: Long Papers)", papers: 193 },
    { venue: "Proceedings of the 2018 Conference on Empirical Methods in Natural Language Processing: System Demonstrations", papers: 4 },
    {
      venue:
        "Proceedings of the 2019 Conference on Empirical Methods in Natural Language Processing and the 9th International Joint Conference on Natural Language Processing (EMNLP-IJCNLP)",
      papers: 536,
    },
    { venue: "Proceedings of the Ninth International Conference on Language Resources and Evaluation (LREC'14)", papers: 15 },
    { venue: "Proceedings of the Tenth International Conference on Language Resources and Evaluation (LREC'16)", papers: 13 },
    { venue: "Proceedings of the 2nd Workshop on Representation Learning for NLP", papers: 9 },
  ];
  const groups = venueGroups(venues);
  assert.deepEqual(
    groups.map((g) => g.series),
    ["ACL (Annual Meeting)", "EMNLP", "TACL (Transactions of the ACL)", "LREC", null],
  );
  const tacl = groups.find((g) => g.series?.startsWith("TACL"))!;
  assert.equal(tacl.papers, 7 * 10 + 28);
  assert.deepEqual(
    tacl.options.map((o) => o.label),
    [7, 6, 5, 4, 3, 2, 1].map((v) => `TACL · Volume ${v}`),
  );
  assert.deepEqual(
    groups[1].options.map((o) => o.label),
    ["EMNLP · 2019 with IJCNLP", "EMNLP · 2018: System Demonstrations"],
  );
  assert.deepEqual(
    groups[0].options.map((o) => o.label),
    ["ACL · 57th meeting", "ACL · 56th meeting (Volume 1: Long Papers)"],
  );
  assert.deepEqual(
    groups[3].options.map((o) => o.label),
    ["LREC · Tenth conference (LREC'16)", "LREC · Ninth conference (LREC'14)"],
  );
  const labels = groups.flatMap((g) => g.options.map((o) => o.label));
  assert.equal(new Set(labels).size, labels.length, "no two options read the same");
  // Every option still filters by the exact stored venue.
  assert.deepEqual(new Set(groups.flatMap((g) => g.options.map((o) => o.venue))), new Set(venues.map((v) => v.venue)));
});

test("long names of no known series are shortened in the middle, unless that would make two equal", () => {
  const long = (end: string) => ({
    venue: `Proceedings of the First Workshop on Something Very Long Indeed About Natural Language Processing and ${end}`,
    papers: 1,
  });
  const [other] = venueGroups([long("Speech"), long("Vision")]);
  assert.equal(other.series, null);
  for (const o of other.options) assert.ok(o.label.length <= 80 && o.label.includes("…"), o.label);
  assert.notEqual(other.options[0].label, other.options[1].label);
  assert.equal(venueSeries("Computational Linguistics, Volume 45, Issue 1 - March 2019").label, "CL journal · Volume 45, Issue 1 - March 2019");
});

test("the select's options: optgroups, counts, the full venue as a tooltip, a selected venue kept", () => {
  const html = renderToStaticMarkup(
    createElement(VenueOptions, {
      venues: [
        { venue: TACL(1), papers: 12 },
        { venue: TACL(2), papers: 16 },
      ],
      selected: "Gone Venue",
    }),
  );
  assert.match(html, /<optgroup label="TACL \(Transactions of the ACL\) · 28">/);
  assert.match(html, /<option value="Transactions of the Association for Computational Linguistics, Volume 2" title="[^"]+">TACL · Volume 2 \(16\)<\/option>/);
  assert.match(html, /<option value="Gone Venue"[^>]*>Gone Venue<\/option>/);
});
