import { test } from "node:test";
import assert from "node:assert/strict";
import { resolveSegment, segmentCandidates } from "./segments";

test("a plain id is its only candidate", () => {
  assert.deepEqual(segmentCandidates("P19-1542"), ["P19-1542"]);
  assert.deepEqual(segmentCandidates("2005.mtsummit-papers.11"), ["2005.mtsummit-papers.11"]);
});

test("an encoded URL id yields the literal then the decoded form", () => {
  const id = "http://www.lrec-conf.org/proceedings/lrec2006/pdf/162_pdf.pdf";
  assert.deepEqual(segmentCandidates(encodeURIComponent(id)), [encodeURIComponent(id), id]);
  assert.deepEqual(segmentCandidates(id), [id]);
});

test("a malformed escape is kept verbatim", () => {
  assert.deepEqual(segmentCandidates("100%"), ["100%"]);
});

test("resolveSegment prefers the literal id, so ids containing '%' are not double-decoded", async () => {
  const ids = new Map([
    ["a%41", "literal"],
    ["aA", "decoded"],
  ]);
  const find = async (v: string) => ids.get(v) ?? null;
  assert.equal(await resolveSegment("a%41", find), "literal"); // a full load hands over the decoded id
  assert.equal(await resolveSegment("a%2541", find), "literal"); // a client navigation hands over the encoded one
  assert.equal(await resolveSegment("nope%20x", find), null);
});
