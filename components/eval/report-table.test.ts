import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { ColumnHead, fixed3, Interval, RowStatusNote } from "./report-table";

test("report table parts: numeric headings align right, intervals use the figure's format, a status note says why", () => {
  assert.equal(renderToStaticMarkup(createElement(ColumnHead, { children: "Method" })), '<th scope="col" class="px-3 py-2 font-medium">Method</th>');
  assert.equal(
    renderToStaticMarkup(createElement(ColumnHead, { numeric: true, title: "why", children: "R@20" })),
    '<th scope="col" class="px-3 py-2 text-right font-medium" title="why">R@20</th>',
  );
  assert.equal(fixed3(undefined), "–");
  assert.match(renderToStaticMarkup(createElement(Interval, { ci: [0.25, 0.5] })), />\[0\.250, 0\.500\]</);
  assert.match(renderToStaticMarkup(createElement(Interval, { ci: [0.25, 0.5], format: (x: number) => x.toFixed(2) })), />\[0\.25, 0\.50\]</);
  assert.equal(renderToStaticMarkup(createElement(Interval, {})), "");
  assert.match(renderToStaticMarkup(createElement(RowStatusNote, { status: "not run", reason: "no model" })), />not run<\/span> no model<\/span>$/);
});
