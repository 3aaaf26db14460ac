import path from "node:path";
import { expect, test } from "@playwright/test";
import { SHOTS } from "./shots";

// Runs against the demo corpus (acl-citegraph, 3,081 papers). Screenshots land in
// e2e/.screenshots/ (e2e/screenshots/, used by the README, with GRAFT_UPDATE_SCREENSHOTS=1).

const EUROPARL = "Europarl: A Parallel Corpus for Statistical Machine Translation";
const FACET_LABELS = ["Problems", "Methods", "Results", "Contributions"];

test("the corpus browser lists the demo corpus; title search opens a paper with facets and citations", async ({ page }) => {
  await page.goto("/papers");
  await expect(page.getByRole("heading", { level: 1, name: "acl-citegraph" })).toBeVisible();
  await expect(page.getByTestId("corpus-paper-count")).toHaveText("3,081");
  await expect(page.getByTestId("results-summary")).toHaveText("Showing 1–20 of 3,081 papers");
  await expect(
    page
      .getByRole("list")
      .filter({ has: page.getByRole("link") })
      .first()
      .getByRole("listitem"),
  ).toHaveCount(20);
  // The first screenful of the corpus browser.
  await page.screenshot({ path: path.join(SHOTS, "browse.png") });

  // Debounced search: the URL follows the box, so the filtered view can be shared.
  await page.getByRole("searchbox", { name: "Title" }).fill("Europarl");
  await expect(page).toHaveURL(/[?&]q=Europarl\b/);
  await expect(page.getByTestId("results-summary")).toHaveText(/^Showing 1–\d+ of \d+ papers?$/);
  const hit = page.getByRole("link", { name: EUROPARL, exact: true });
  await expect(hit).toBeVisible();
  await hit.click();

  await expect(page).toHaveURL(/\/papers\/acl-citegraph\/2005\.mtsummit-papers\.11$/);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(EUROPARL);
  await expect(page.getByTestId("paper-authors")).toHaveText("Philipp Koehn");

  for (const label of FACET_LABELS) {
    const section = page.getByRole("region", { name: new RegExp(`^${label}`) });
    await expect(section).toBeVisible();
    expect(await section.getByRole("listitem").count(), `${label} items`).toBeGreaterThan(0);
  }

  const references = page.getByTestId("references");
  const citedBy = page.getByTestId("cited-by");
  await expect(references.getByRole("heading", { name: /^References/ })).toBeVisible();
  await expect(citedBy.getByRole("heading", { name: /^Cited by/ })).toBeVisible();
  // Europarl (2005) is cited by dozens of corpus papers; the first dozen show, the rest fold away.
  const citers = citedBy.getByRole("link");
  expect(await citers.count()).toBeGreaterThan(1);
  await page.screenshot({ path: path.join(SHOTS, "paper.png"), fullPage: true });

  // A citer's page links back here through its references.
  await citers.first().click();
  await expect(page).toHaveURL(/\/papers\/acl-citegraph\/[^/]+$/);
  await expect(page.getByTestId("references").getByRole("link", { name: EUROPARL, exact: true })).toBeVisible();
});

test("a shared filtered URL restores the filters and the results", async ({ page }) => {
  await page.goto("/papers?q=neural&yearFrom=2016&yearTo=2017&page=2");
  await expect(page.getByRole("searchbox", { name: "Title" })).toHaveValue("neural");
  await expect(page.getByLabel("From year")).toHaveValue("2016");
  await expect(page.getByLabel("To year")).toHaveValue("2017");
  await expect(page.getByTestId("results-summary")).toHaveText(/^Showing 21–40 of \d+ papers$/);
  await expect(page.getByText(/^Page 2 of \d+$/)).toBeVisible();
  const years = await page.getByTestId("paper-year").allTextContents();
  expect(years).toHaveLength(20);
  for (const year of years) expect(["2016", "2017"]).toContain(year);

  // Back to page 1 through the pager; the filters stay in the URL.
  await page.getByRole("button", { name: "Previous" }).click();
  await expect(page).toHaveURL(/\/papers\?q=neural&yearFrom=2016&yearTo=2017$/);
  await expect(page.getByTestId("results-summary")).toHaveText(/^Showing 1–20 of \d+ papers$/);
});

test("paper ids that are URLs round-trip through links and reloads", async ({ page }) => {
  // Some ids are URLs ("http://…/162_pdf.pdf"): links must encode them and the page must
  // resolve them both after a client-side navigation and on a fresh server render.
  const id = "http://www.lrec-conf.org/proceedings/lrec2006/pdf/162_pdf.pdf";
  await page.goto("/papers?q=MaltParser");
  await page.getByRole("link", { name: "MaltParser: A Data-Driven Parser-Generator for Dependency Parsing" }).click();
  await expect(page).toHaveURL(new RegExp(`/papers/acl-citegraph/${encodeURIComponent(id).replace(/\./g, "\\.")}$`));
  await expect(page.getByRole("navigation", { name: "Breadcrumb" })).toContainText(id);
  const res = await page.reload();
  expect(res?.status()).toBe(200);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("MaltParser: A Data-Driven Parser-Generator for Dependency Parsing");
});

test("an unknown paper id shows the not-found page", async ({ page }) => {
  const res = await page.goto("/papers/acl-citegraph/NO-SUCH-PAPER.1");
  expect(res?.status()).toBe(404);
  await expect(page.getByRole("heading", { level: 1, name: "Paper not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Search the corpus" })).toHaveAttribute("href", "/papers");
});

test("the API answers a malformed query with a typed 400", async ({ request }) => {
  const res = await request.get("/api/papers?yearFrom=abc");
  expect(res.status()).toBe(400);
  const body = await res.json();
  expect(body.error.code).toBe("invalid_request");
  expect(body.error.message).toMatch(/^Invalid request: yearFrom: /);
  expect(body.error.issues).toEqual([expect.objectContaining({ path: "yearFrom" })]);

  const missing = await request.get(`/api/papers/acl-citegraph/${encodeURIComponent("NO-SUCH-PAPER")}`);
  expect(missing.status()).toBe(404);
  expect((await missing.json()).error.code).toBe("not_found");
});

test("the corpus browser shows the API's error message for an invalid filter", async ({ page }) => {
  await page.goto("/papers?yearFrom=2019&yearTo=2010");
  const alert = page.getByRole("alert").filter({ hasText: "Could not load papers" });
  await expect(alert).toContainText("yearFrom must not be after yearTo");
});
