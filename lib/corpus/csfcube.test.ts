import assert from "node:assert/strict";
import { test } from "node:test";
import { convertCsfcube } from "./csfcube";
import { parsePaperRecord } from "./paper-schema";

const line = (o: Record<string, unknown>) => JSON.stringify(o);

test("CSFCube abstracts → papers.jsonl lines: sentences joined, labels as facets, a year out of range left out with a note", () => {
  const text = [
    line({
      paper_id: "1",
      title: "A",
      abstract: ["We study X.", "We use Y.", "Y beats Z.", "Other.", "We aim at W."],
      pred_labels: ["background_label", "method_label", "result_label", "other_label", "objective_label"],
      metadata: { year: "2017" },
    }),
    "",
    line({ paper_id: 2, title: "B", abstract: ["Only one."], pred_labels: ["method_label"], metadata: { year: "801" } }),
    line({ paper_id: "3", title: "C", abstract: [], metadata: { year: "None" } }),
  ].join("\n");
  const { lines, notes } = convertCsfcube(text, "labels");
  assert.deepEqual(lines[0], {
    id: "1",
    title: "A",
    abstract: "We study X. We use Y. Y beats Z. Other. We aim at W.",
    year: 2017,
    facets: { problems: ["We study X.", "We aim at W."], methods: ["We use Y."], results: ["Y beats Z."] },
  });
  assert.equal(lines[1].id, "2");
  assert.equal(lines[1].year, undefined);
  assert.deepEqual(notes, ['abstracts.jsonl:3: paper 2: year "801" is outside 1000-2100; imported without a year'], "a missing year (None) is no note");
  for (const l of lines) assert.ok(parsePaperRecord(l).ok, "every line passes the import's schema");
  const none = convertCsfcube(text, "none");
  assert.ok(
    none.lines.every((l) => l.facets === undefined),
    "no facets: graft extract fills them",
  );
  assert.throws(
    () => convertCsfcube("{oops\n" + line({ title: "no id" }), "labels"),
    /abstracts.jsonl:1: not JSON\nabstracts.jsonl:2: paper_id and title are required/,
  );
});
