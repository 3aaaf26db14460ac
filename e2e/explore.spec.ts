import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { ONE_COLUMN, onePaperPdf } from "../lib/input/test-pdfs";
import { SHOTS } from "./shots";
import { pastePaper } from "./paste";

// The explorer on the demo corpus (acl-citegraph with a graph build): paste text, upload a PDF,
// pick a corpus paper; results with facet chips and "why related"; filters, sort, retriever
// comparison; exports and the collection. Screenshots of the main views go to SHOTS (e2e/shots.ts).

const EXAMPLE = "C16-1030"; // "Attending to Characters in Neural Sequence Labeling Models", a curated example

// An abstract written for the test (not a corpus paper): a title line, then the abstract.
const ABSTRACT = `Cross-lingual Transfer for Low-resource Named Entity Recognition

Named entity recognition in low-resource languages suffers from a lack of annotated training data. We propose a cross-lingual transfer method that projects annotations from English through parallel corpora and trains a bidirectional LSTM-CRF tagger with character embeddings on the projected labels. Experiments on ten languages show consistent gains over monolingual baselines, with the largest improvements for languages with fewer than a thousand labelled sentences. We release the projected datasets and the tagger.`;

/** The results as rows: title, year and the facet letters of their chips. */
async function resultRows(page: Page) {
  return page.getByTestId("result").evaluateAll((els) =>
    els.map((el) => ({
      title: el.querySelector("[data-testid=result-title]")?.textContent ?? "",
      year: el.querySelector("[data-testid=result-year]")?.textContent ?? "",
      facets: [...el.querySelectorAll("[data-testid=facet-chip]")].map((c) => c.getAttribute("data-facet")),
    })),
  );
}

test("paste an abstract: progress, then results with facet chips and why-related, without a page load", async ({ page }) => {
  await page.goto("/");
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Find related papers");
  await expect(page.getByTestId("examples").getByRole("button")).toHaveCount(6);
  await page.screenshot({ path: path.join(SHOTS, "home.png") });

  // A marker on window survives only if the page is never reloaded.
  await page.evaluate(() => ((window as unknown as { __noReload: boolean }).__noReload = true));
  // Hold the request until the test has seen the progress indicator's first step: released on
  // that state, not after a fixed time, which a loaded machine can outlast.
  let release = () => {};
  const held = new Promise<void>((resolve) => (release = resolve));
  await page.route("**/api/related?stream=1", async (route) => {
    await held;
    await route.continue();
  });

  await pastePaper(page, ABSTRACT);
  await page.getByRole("button", { name: "Find related papers" }).click();
  const progress = page.getByTestId("query-progress");
  await expect(progress).toBeVisible();
  await expect(progress.locator("[data-state=active]")).toHaveCount(1);

  await expect(progress.locator("[data-step=upload]")).toHaveAttribute("data-state", "active");
  release();
  await expect(page.getByTestId("result").first()).toBeVisible();

  await expect(progress).toBeHidden();
  expect(await page.evaluate(() => (window as unknown as { __noReload?: boolean }).__noReload)).toBe(true);

  // The steps the indicator follows: the stream reports each one, then the result. (Chromium
  // does not hand a streamed body to the test, so the same request is made directly.)
  const stream = await page.request.post("/api/related?stream=1", { data: { text: ABSTRACT, retriever: "dense-graph" } });
  const lines = (await stream.text())
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  expect(lines.filter((l) => l.step).map((l) => l.step)).toEqual(["upload", "parse", "extract", "embed", "retrieve", "fuse"]);
  expect(lines.at(-1).result.results).toHaveLength(20);

  await expect(page.getByTestId("query-title")).toHaveText("Cross-lingual Transfer for Low-resource Named Entity Recognition");
  // A pasted paper's extracted facets are shown, so the reader sees what was searched with.
  const queryFacets = page.getByTestId("query-facets");
  await expect(queryFacets).toBeVisible();
  await expect(queryFacets.getByRole("listitem").first()).toBeVisible();

  const rows = await resultRows(page);
  expect(rows).toHaveLength(20);
  for (const r of rows) {
    expect(r.title.length).toBeGreaterThan(0);
    expect(r.facets.length, `${r.title} has facet chips`).toBeGreaterThan(0);
    for (const f of r.facets) expect(["problems", "methods", "results", "contributions"]).toContain(f);
  }
  await expect(page.getByTestId("results-summary")).toContainText("20 related papers");

  // "Why related": the query's item next to the paper's item, per credited facet.
  const first = page.getByTestId("result").first();
  await first.getByRole("button", { name: "Why related" }).click();
  await expect(first.getByRole("button", { name: "Why related" })).toHaveAttribute("aria-expanded", "true");
  const why = first.getByTestId("why-related");
  await expect(why.getByRole("region")).toHaveCount(rows[0].facets.length);
  await expect(why.getByTestId("evidence-query").first()).not.toBeEmpty();
  await expect(why.getByTestId("evidence-paper").first()).not.toBeEmpty();
  await page.screenshot({ path: path.join(SHOTS, "explore-results.png") });
});

test("upload a PDF made by the test: it is read, its facets extracted, and related papers listed", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "Upload a PDF" }).click();
  await expect(page.getByTestId("drop-zone")).toContainText("Drop a PDF here");
  await page.getByLabel("Paper file (PDF, text or JSON)").setInputFiles({
    name: "facet-retrieval.pdf",
    mimeType: "application/pdf",
    buffer: Buffer.from(await onePaperPdf()),
  });
  await expect(page.getByTestId("result").first()).toBeVisible({ timeout: 20_000 });
  await expect(page.getByTestId("query-title")).toHaveText(ONE_COLUMN.title);
  await expect(page.getByText("PDF", { exact: true })).toBeVisible();
  const rows = await resultRows(page);
  expect(rows.length).toBeGreaterThan(0);
  expect(rows.every((r) => r.facets.length > 0)).toBe(true);
});

test("a file Graft cannot read gets a clear error and a way back", async ({ page }) => {
  await page.goto("/");
  await page.getByRole("tab", { name: "Upload a PDF" }).click();
  await page.getByLabel("Paper file (PDF, text or JSON)").setInputFiles({
    name: "figure.png",
    mimeType: "image/png",
    buffer: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52]),
  });
  const error = page.getByTestId("query-error");
  await expect(error).toBeVisible();
  await expect(error).toContainText("could not read this file");
  await error.getByRole("button", { name: "Choose another file" }).click();
  await expect(page.getByTestId("composer")).toBeVisible();
});

test("filters, sort, per-facet view and retriever comparison on a corpus paper", async ({ page }) => {
  await page.goto(`/?paper=${EXAMPLE}`);
  await expect(page.getByTestId("query-title")).toHaveText("Attending to Characters in Neural Sequence Labeling Models");
  await expect(page.getByTestId("result")).toHaveCount(20);

  // Graft's own retriever needs a trained model: either it answered, or the page says it fell back.
  const graft = await page.request.post("/api/related", { data: { paperId: EXAMPLE, retriever: "graft", k: 5 } });
  if (graft.status() === 409) {
    await expect(page.getByTestId("graft-fallback")).toContainText("not trained");
    await expect(page.getByTestId("results-summary")).toContainText("Dense graph");
  } else {
    expect(graft.status()).toBe(200);
    await expect(page.getByTestId("results-summary")).toContainText("Graft");
  }

  // Year range: every result falls inside it, and the URL carries it.
  await page.getByLabel("From year").selectOption("2018");
  await page.getByLabel("To year").selectOption("2019");
  await expect(page).toHaveURL(/yearFrom=2018/);
  await expect(page).toHaveURL(/yearTo=2019/);
  await expect(page.getByTestId("results-summary")).toContainText("related papers");
  await expect(async () => {
    const years = (await resultRows(page)).map((r) => Number(r.year));
    expect(years.length).toBeGreaterThan(0);
    for (const y of years) expect(y >= 2018 && y <= 2019, `year ${y}`).toBe(true);
  }).toPass();

  // Sort by year: newest first.
  await page.getByLabel("Sort").selectOption("year");
  await expect(page).toHaveURL(/sort=year/);
  await expect(async () => {
    const years = (await resultRows(page)).map((r) => Number(r.year));
    expect([...years].sort((a, b) => b - a)).toEqual(years);
  }).toPass();

  // Only one facet: every result is credited by it alone.
  // The URL is the state: a checkbox follows it a frame after the click.
  for (const f of ["Problems", "Results", "Contributions"]) {
    await page.getByRole("checkbox", { name: f }).click();
    await expect(page.getByRole("checkbox", { name: f })).not.toBeChecked();
  }
  await expect(page).toHaveURL(/facets=methods/);
  await expect(async () => {
    const rows = await resultRows(page);
    expect(rows.length).toBeGreaterThan(0);
    for (const r of rows) expect(r.facets).toEqual(["methods"]);
  }).toPass();
  await expect(page.getByRole("checkbox", { name: "Methods" })).toBeDisabled(); // the last facet stays on
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).not.toHaveURL(/facets=|yearFrom=/);

  // Per-facet view: four columns, each its own list.
  await page.getByTestId("view-facets").click();
  for (const f of ["problems", "methods", "results", "contributions"])
    await expect(page.getByTestId(`per-facet-${f}`).getByTestId("per-facet-entry").first()).toBeVisible();
  await page.screenshot({ path: path.join(SHOTS, "explore-per-facet.png") });

  // Retriever comparison: BM25 answers the same query, and the summary says so.
  await page.getByTestId("view-list").click();
  await page.getByRole("radio", { name: "BM25" }).click();
  await expect(page.getByRole("radio", { name: "BM25" })).toBeChecked();
  await expect(page).toHaveURL(/retriever=bm25/);
  await expect(page.getByTestId("results-summary")).toContainText("BM25");
  await expect(page.getByTestId("result").first()).toBeVisible();
});

test("export the results as BibTeX and RIS, and a collection", async ({ page }) => {
  await page.goto(`/?paper=${EXAMPLE}&k=10`);
  await expect(page.getByTestId("result")).toHaveCount(10);
  const titles = (await resultRows(page)).map((r) => r.title);

  await page.getByRole("button", { name: "Export", exact: true }).click();
  const [bib] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^BibTeX/ }).click()]);
  expect(bib.suggestedFilename()).toBe("graft-attending-to-characters-in-neural-sequence-label.bib");
  const text = await readFile((await bib.path())!, "utf8");
  const keys = [...text.matchAll(/^@(inproceedings|article|misc)\{([^,]+),$/gm)].map((m) => m[2]);
  expect(keys).toHaveLength(10);
  expect(new Set(keys).size).toBe(10);
  // Each entry in rank order, with its title (acronyms braced) and where it was found.
  const bibTitles = [...text.matchAll(/^ {2}title\s*= \{(.*)\},$/gm)].map((m) => m[1].replace(/[{}]/g, "").replace(/\\(.)/g, "$1"));
  expect(bibTitles).toEqual(titles);
  // Earlier or later work than the query first (issue 27), then the credited facets.
  expect(text).toMatch(
    /note\s*= \{((Earlier|Later) work \(published (before|after) the query\); related|Related) via (problems|methods|results|contributions) \(rank \d+\)/,
  );
  expect(text).toMatch(/note\s*= \{(Earlier|Later) work \(published (before|after) the query\)/);

  await page.getByRole("button", { name: "Export", exact: true }).click();
  const [ris] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^RIS/ }).click()]);
  const risText = await readFile((await ris.path())!, "utf8");
  expect(risText.match(/^TY {2}- /gm)).toHaveLength(10);
  expect(risText.match(/^ER {2}- /gm)).toHaveLength(10);

  // Save two results to the collection, then export it.
  const results = page.getByTestId("result");
  await results
    .nth(0)
    .getByRole("button", { name: /^Save / })
    .click();
  await results
    .nth(2)
    .getByRole("button", { name: /^Save / })
    .click();
  await expect(results.nth(0).getByRole("button", { name: /^Saved: / })).toHaveAttribute("aria-pressed", "true");
  await page.getByTestId("collection-button").click();
  const dialog = page.getByRole("dialog", { name: "Your collection" });
  await expect(dialog.getByTestId("collection-items").getByRole("listitem")).toHaveCount(2);
  await expect(dialog).toContainText(titles[0]);
  await dialog.getByRole("button", { name: "Export collection" }).click();
  const [csv] = await Promise.all([page.waitForEvent("download"), dialog.getByRole("button", { name: /^CSV/ }).click()]);
  const rows = (await readFile((await csv.path())!, "utf8")).trim().split("\r\n");
  expect(rows[0]).toBe("rank,score,corpus,id,title,authors,year,venue,url,facets");
  expect(rows).toHaveLength(3);
  // The collection outlives the page.
  await page.reload();
  await page.getByTestId("collection-button").click();
  await expect(page.getByRole("dialog", { name: "Your collection" }).getByTestId("collection-items").getByRole("listitem")).toHaveCount(2);
});

test("a paper page offers the explorer, citation export and its related papers", async ({ page }) => {
  await page.goto(`/papers/acl-citegraph/${EXAMPLE}`);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Attending to Characters in Neural Sequence Labeling Models");
  const related = page.getByTestId("related-papers");
  await expect(related.getByTestId("result")).toHaveCount(10);
  await related.getByRole("button", { name: "Show all 20" }).click();
  await expect(related.getByTestId("result")).toHaveCount(20);
  await expect(related.getByTestId("facet-chip").first()).toBeVisible();

  await page.getByRole("button", { name: "Cite" }).click();
  const [bib] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^BibTeX/ }).click()]);
  const text = await readFile((await bib.path())!, "utf8");
  expect(text).toMatch(/^@inproceedings\{rei2016attending,$/m);
  expect(text).toMatch(/^ {2}url\s*= \{https:\/\/aclanthology\.org\/C16-1030\},$/m);

  await page.getByTestId("explore-related").click();
  await expect(page).toHaveURL(new RegExp(`/\\?paper=${EXAMPLE}$`));
  await expect(page.getByTestId("result").first()).toBeVisible();
});
