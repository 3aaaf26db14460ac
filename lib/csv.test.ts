import assert from "node:assert/strict";
import { test } from "node:test";
import { csvField, toCsv } from "./csv";

/** A strict RFC 4180 reader, to check that what toCsv writes reads back as the values given. */
function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    let field = "";
    if (text[i] === '"') {
      i++;
      for (;;) {
        const q = text.indexOf('"', i);
        assert.ok(q >= 0, "unterminated quoted field");
        field += text.slice(i, q);
        i = q + 1;
        if (text[i] === '"') {
          field += '"';
          i++;
        } else break;
      }
    } else {
      while (i < text.length && text[i] !== "," && text[i] !== "\r") field += text[i++];
      assert.ok(!field.includes('"') && !field.includes("\n"), `unquoted field with a quote or line break: ${JSON.stringify(field)}`);
    }
    row.push(field);
    if (text[i] === ",") i++;
    else {
      assert.equal(text.slice(i, i + 2), "\r\n", "a row ends in CRLF");
      i += 2;
      rows.push(row);
      row = [];
    }
  }
  return rows;
}

test("fields with a comma, a quote or a line break are quoted, quotes doubled", () => {
  assert.equal(csvField("plain"), "plain");
  assert.equal(csvField("a, b"), '"a, b"');
  assert.equal(csvField('say "hi"'), '"say ""hi"""');
  assert.equal(csvField('say "hi", ok'), '"say ""hi"", ok"');
  assert.equal(csvField("two\nlines"), '"two\nlines"');
  assert.equal(csvField("two\r\nlines"), '"two\r\nlines"');
  assert.equal(csvField('"'), '""""');
  assert.equal(csvField(" padded "), '" padded "');
  assert.equal(csvField(""), "");
});

test("spreadsheet formulas are defused with an apostrophe; numbers are not", () => {
  assert.equal(csvField("=HYPERLINK(1)"), "'=HYPERLINK(1)");
  assert.equal(csvField("+1"), "'+1");
  assert.equal(csvField("-1+2"), "'-1+2");
  assert.equal(csvField("@SUM(A1)"), "'@SUM(A1)");
  assert.equal(csvField("=1,2"), `"'=1,2"`);
  assert.equal(csvField(-3), "-3");
  assert.equal(csvField(0.5), "0.5");
});

test("null, undefined and non-finite numbers are empty; booleans print", () => {
  assert.equal(csvField(null), "");
  assert.equal(csvField(undefined), "");
  assert.equal(csvField(Number.NaN), "");
  assert.equal(csvField(Number.POSITIVE_INFINITY), "");
  assert.equal(csvField(true), "true");
});

test("a table is a header and CRLF-terminated rows that read back as written", () => {
  assert.equal(toCsv(["a", "b"], [[1, "x\ny"]]), 'a,b\r\n1,"x\ny"\r\n');
  assert.equal(toCsv(["only"], []), "only\r\n");
  const rows = [
    ["Smith, J.; Doe, A.", 'The "best" paper', "line one\nline two\r\nline three", "", "plain"],
    ["a,b,c", '""', "\n", " lead", "trail "],
  ];
  assert.deepEqual(parseCsv(toCsv(["authors", "title", "abstract", "empty", "x"], rows)), [["authors", "title", "abstract", "empty", "x"], ...rows]);
});
