import { expect, type Browser, type Page } from "@playwright/test";

/**
 * bcrypt's minimum cost, for the accounts the specs make and for the e2e server's own hashes
 * (playwright.config.ts): the specs check who may do what, not hashing strength (as
 * lib/auth/auth.test.ts does). At the default cost each hash or sign-in costs ~0.4 s of CPU, more
 * on a loaded machine; the production default (lib/config.ts) is unchanged.
 */
export const E2E_BCRYPT_ROUNDS = 4;

/**
 * A page in a fresh browser context, signed in through the API the sign-in form calls (one
 * request instead of loading the form and the page it redirects to): for steps that test what a
 * signed-in user can do; the form itself is tested by signing in through it.
 */
export async function signedInPage(browser: Browser, email: string, password: string): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  const res = await page.request.post("/api/auth/login", { data: { email, password } });
  expect(res.status(), `sign-in of ${email}`).toBe(200);
  return page;
}
