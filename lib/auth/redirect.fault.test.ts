import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { loginPath } from "./guard";
import { afterSignIn, localPath } from "./redirect";

// Issue 28: /login?next=%2F%09%2F127.0.0.2%3A3417%2Fpwned sent a signed-in user to another origin.
// Every `next` below arrives as the sign-in page reads it (decoded once from the query string).

const ORIGIN = "http://127.0.0.1:3000";
const HOME = "/annotate";

/** `next` as the page's searchParams hold it, from the raw query value the attacker wrote. */
const fromQuery = (encoded: string) => new URL(`${ORIGIN}/login?next=${encoded}`).searchParams.get("next")!;

const ATTACKS = [
  "%2F%09%2F127.0.0.2%3A3417%2Fpwned", // the reported one: "/<tab>/127.0.0.2:3417/pwned"
  "%2F%0A%2Fevil.example",
  "%2F%0D%2Fevil.example",
  "%2F%2Fevil.example",
  "//evil.example",
  "/%5Cevil.example",
  "/\\evil.example",
  "\\\\evil.example",
  "%5C%5Cevil.example",
  "/%09/evil.example",
  "%09//evil.example",
  "/./%2Fevil.example",
  "/.//evil.example",
  "/..//evil.example",
  "///evil.example",
  "https://evil.example",
  "https:evil.example",
  "http%3A%2F%2Fevil.example",
  "javascript:alert(1)",
  "javascript%3Aalert(1)",
  "%20//evil.example",
  "%00//evil.example",
  "/%00/evil.example",
  "/%E2%80%A8/evil.example",
  "data:text/html,pwned",
  "evil.example",
  "",
];

describe("the redirect after sign-in stays on this origin", () => {
  for (const attack of ATTACKS)
    test(`next=${JSON.stringify(attack)}`, () => {
      const next = fromQuery(attack);
      const target = afterSignIn(next, HOME);
      // What the browser does with it: window.location.assign / a Location header, against this origin.
      assert.equal(new URL(target, ORIGIN).origin, ORIGIN, `${JSON.stringify(next)} → ${target}`);
      assert.ok(target.startsWith("/") && !target.startsWith("//"), target);
      const login = loginPath(next);
      assert.equal(new URL(login, ORIGIN).origin, ORIGIN);
      const back = new URL(login, ORIGIN).searchParams.get("next");
      if (back !== null) assert.equal(new URL(afterSignIn(back, HOME), ORIGIN).origin, ORIGIN);
    });

  test("the reported string and its relatives fall back to the home page", () => {
    for (const attack of [
      "%2F%09%2F127.0.0.2%3A3417%2Fpwned",
      "//evil.example",
      "/\\evil.example",
      "/.//evil.example",
      "javascript:alert(1)",
      "https://evil.example",
    ])
      assert.equal(afterSignIn(fromQuery(attack), HOME), HOME, attack);
  });

  test("real local paths survive, normalised; the sign-in page itself is not a destination", () => {
    assert.equal(localPath("/admin/studies/3?tab=agreement#top"), "/admin/studies/3?tab=agreement#top");
    assert.equal(localPath("/papers/acl/P10-1001"), "/papers/acl/P10-1001");
    assert.equal(localPath("/a/../admin"), "/admin");
    assert.equal(localPath("/search?q=a%2Fb"), "/search?q=a%2Fb");
    assert.equal(afterSignIn("/admin/studies/3", HOME), "/admin/studies/3");
    assert.equal(afterSignIn("/login?next=/admin", HOME), HOME);
    assert.equal(afterSignIn("/./login", HOME), HOME);
    assert.equal(afterSignIn("/login-help", HOME), "/login-help");
    assert.equal(afterSignIn(undefined, HOME), HOME);
    assert.equal(afterSignIn(["/admin"], HOME), HOME);
  });
});
