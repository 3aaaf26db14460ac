import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { formButtonClass, formPrimaryButtonClass } from "../ui";
import { StudyCard, StudyList } from "./study-card";

const card = (extra: { href?: string; primary?: boolean }) =>
  renderToStaticMarkup(
    createElement(StudyCard, {
      name: "Pilot",
      href: extra.href,
      facts: "acl · open",
      action: { href: "/annotate/1", label: "Start", primary: extra.primary },
      progress: { value: 3, total: 12, label: "Progress on Pilot", text: "3 / 12 rated" },
    }),
  );

test("a study list is a labelled list of cards, or a card saying there are none", () => {
  const list = renderToStaticMarkup(
    createElement(StudyList, { studies: [{ id: 1 }, { id: 2 }], label: "Studies", empty: "None yet.", children: (s: { id: number }) => `study ${s.id}` }),
  );
  assert.equal(list, '<ul class="space-y-3" aria-label="Studies"><li>study 1</li><li>study 2</li></ul>');
  const none = renderToStaticMarkup(createElement(StudyList, { studies: [], label: "Studies", empty: "None yet.", children: () => "never" }));
  assert.match(none, /<section[^>]*><p class="text-sm text-ink-muted">None yet\.<\/p><\/section>/);
  assert.doesNotMatch(none, /<ul|never/);
});

test("a study card: its name (linked when it has a page), facts, one action and a progress bar", () => {
  const linked = card({ href: "/admin/studies/1" });
  assert.match(linked, /<a class="[^"]*hover:underline" href="\/admin\/studies\/1">Pilot<\/a><p class="mt-1 text-sm text-ink-muted">acl · open<\/p>/);
  assert.ok(linked.includes(`<a class="${formButtonClass}" href="/annotate/1">Start</a>`));
  assert.match(linked, /role="progressbar" aria-label="Progress on Pilot"[^>]*aria-valuemax="12" aria-valuenow="3"/);
  assert.match(linked, />3 \/ 12 rated</);
  const plain = card({ primary: true });
  assert.match(plain, /<p class="text-base font-semibold tracking-tight">Pilot<\/p>/);
  assert.ok(plain.includes(`<a class="${formPrimaryButtonClass}" href="/annotate/1">Start</a>`));
});
