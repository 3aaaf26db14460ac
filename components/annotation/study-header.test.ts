import assert from "node:assert/strict";
import { test } from "node:test";
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { adminNav, StudyHeader } from "./study-header";

test("adminNav marks exactly the current page, Corpora included", () => {
  for (const current of ["studies", "users", "corpora", "jobs", "annotate"] as const) {
    const nav = adminNav(current);
    assert.equal(nav.filter((l) => l.current).length, 1, current);
  }
  assert.deepEqual(
    adminNav("corpora").map((l) => [l.label, l.href, Boolean(l.current)]),
    [
      ["Studies", "/admin", false],
      ["Annotators", "/admin/users", false],
      ["Corpora", "/admin/corpora", true],
      ["Jobs", "/admin/jobs", false],
      ["My sheets", "/annotate", false],
    ],
  );
});

test("StudyHeader renders the study navigation, the signed-in user and a sign-out form", () => {
  const html = renderToStaticMarkup(
    createElement(StudyHeader, {
      eyebrow: "Admin",
      title: "Corpora",
      user: { id: 1, email: "ada@example.org", name: "Ada", role: "admin" },
      nav: adminNav("corpora"),
    }),
  );
  assert.match(html, /<a aria-current="page"[^>]*href="\/admin\/corpora">Corpora<\/a>/);
  assert.equal((html.match(/aria-current="page"/g) ?? []).length, 1);
  assert.match(html, /data-testid="signed-in-as">Ada/);
  assert.match(html, /<form action="\/api\/auth\/logout" method="post"><button type="submit"[^>]*>Sign out<\/button><\/form>/);
  assert.match(html, /<h1[^>]*>Corpora<\/h1>/);
});
