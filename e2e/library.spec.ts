import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { SHOTS } from "./shots";

// "Your library" and prior / derivative works (issue 19) on the demo corpus: the test writes a
// BibTeX library from the papers the explorer shows (titles shouted and re-punctuated, so they
// match only after normalisation), uploads it, sees the "in your library" marks in the list, the
// per-facet lists and the graph, hides them, survives a broken file, and opens the prior and
// derivative works. Screenshots go to SHOTS (e2e/shots.ts).

const EXAMPLE = "C16-1030";

type Cy = { nodes: (sel?: string) => { length: number; map: <T>(f: (n: { id: () => string }) => T) => T[] } };

/** A BibTeX string value: LaTeX's specials escaped, the case changed (the matcher ignores it). */
const bibTitle = (title: string) =>
  title
    .toUpperCase()
    .replace(/[&%$#_]/g, (c) => `\\${c}`)
    .replace(/[{}]/g, "");

async function firstResults(page: Page, n: number) {
  return page.getByTestId("result").evaluateAll(
    (els, n) =>
      els.slice(0, n).map((el) => ({
        id: el.getAttribute("data-id") ?? "",
        title: el.querySelector("[data-testid=result-title]")?.textContent ?? "",
        year: Number(el.querySelector("[data-testid=result-year]")?.textContent),
      })),
    n,
  );
}

async function upload(page: Page, name: string, text: string) {
  await page.getByTestId("library-file").setInputFiles({ name, mimeType: "text/plain", buffer: Buffer.from(text) });
}

async function libraryNodes(canvas: Locator) {
  return canvas.evaluate((el) => {
    const cy = (el as unknown as { __cy: Cy }).__cy;
    return { marked: cy.nodes(".in-library").map((n) => n.id()), visible: cy.nodes(".in-library:visible").length };
  });
}

test("a BibTeX library marks and hides its papers everywhere; prior and derivative works open paper pages", async ({ page }) => {
  // One reader's whole session: a cold first query (hybrid loads its indexes), four views, two uploads.
  test.setTimeout(120_000);
  await page.goto(`/?paper=${EXAMPLE}`);
  await expect(page.getByTestId("result").first()).toBeVisible({ timeout: 30_000 });
  const mine = (await firstResults(page, 3)).filter((r) => Number.isInteger(r.year));
  expect(mine.length).toBeGreaterThanOrEqual(2);
  const bib = mine
    .map((r, i) => `@inproceedings{mine${i},\n  title = {${bibTitle(r.title)}.},\n  year = {${r.year}},\n  author = {Reader, A.}\n}\n`)
    .join("\n");

  // Upload: each of those results is marked, and only those.
  await expect(page.getByTestId("library-panel")).toContainText("Your library");
  await upload(page, "my-library.bib", bib);
  await expect(page.getByTestId("library-summary")).toContainText(`my-library.bib: ${mine.length} papers`);
  const marked = page.getByTestId("result").filter({ has: page.getByTestId("library-badge") });
  await expect(marked).toHaveCount(mine.length);
  expect(await marked.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")))).toEqual(mine.map((r) => r.id));
  await expect(marked.first().getByTestId("library-badge")).toHaveText("in your library");
  await page.screenshot({ path: path.join(SHOTS, "library-marked.png") });

  // A broken file is refused line by line, and the library already stored is kept.
  await upload(page, "broken.bib", "@article{nothing,\n  year = 2020\n}\n");
  const error = page.getByTestId("library-error");
  await expect(error).toContainText("Could not read broken.bib; your library is unchanged");
  await expect(error).toContainText("broken.bib:1:");
  await expect(page.getByTestId("library-summary")).toContainText("my-library.bib");
  await expect(marked).toHaveCount(mine.length);

  // Hide: the library's papers leave the list (the rest keep their fused ranks).
  await page.getByTestId("library-hide").check();
  await expect(page.getByTestId("library-badge")).toHaveCount(0);
  for (const r of mine) await expect(page.locator(`[data-testid=result][data-id="${r.id}"]`)).toHaveCount(0);
  await expect(page.getByTestId("library-results-note")).toContainText(`${mine.length} in your library hidden`);
  await page.screenshot({ path: path.join(SHOTS, "library-hidden.png") });

  // The per-facet lists leave them out too, and mark them once they are shown again.
  await page.getByTestId("view-facets").click();
  await expect(page.getByTestId("per-facet-view")).toBeVisible();
  const facetTitles = page.getByTestId("per-facet-entry").locator("a");
  for (const r of mine) await expect(facetTitles.filter({ hasText: r.title })).toHaveCount(0);
  await page.getByTestId("library-hide").uncheck();
  for (const r of mine) {
    const entries = page.getByTestId("per-facet-entry").filter({ has: page.locator("a", { hasText: r.title }) });
    const n = await entries.count();
    await expect(entries.filter({ has: page.getByTestId("library-badge") })).toHaveCount(n);
  }

  // The graph rings the library's papers, hides them on request, and sizes / colours nodes.
  await page.getByTestId("view-graph").click();
  const canvas = page.getByTestId("graph-canvas");
  await expect(canvas).toHaveAttribute("data-ready", "true", { timeout: 20_000 });
  await expect.poll(async () => (await libraryNodes(canvas)).marked.sort()).toEqual(mine.map((r) => r.id).sort());
  expect((await libraryNodes(canvas)).visible).toBe(mine.length);
  await page.getByTestId("graph-size-citations").check();
  await expect(canvas).toHaveAttribute("data-size-by", "citations");
  await page.getByTestId("graph-colour-year").check();
  await expect(page.getByTestId("graph-node-legend")).toContainText("size: cited");
  await page.screenshot({ path: path.join(SHOTS, "library-graph.png") });
  await page.getByTestId("library-hide").check();
  await expect.poll(async () => (await libraryNodes(canvas)).visible).toBe(0);

  // Prior and derivative works, with their counts, link to paper pages.
  await page.getByTestId("view-lineage").click();
  await expect(page.getByTestId("lineage-view")).toBeVisible({ timeout: 20_000 });
  const prior = page.getByTestId("lineage-prior").getByTestId("lineage-work");
  const derivative = page.getByTestId("lineage-derivative").getByTestId("lineage-work");
  await expect(prior.first()).toBeVisible();
  await expect(derivative.first()).toBeVisible();
  await expect(prior.first().getByTestId("lineage-count")).toHaveText(/^cited by \d+$/);
  await expect(derivative.first().getByTestId("lineage-count")).toHaveText(/^cites \d+$/);
  const counts = await prior.getByTestId("lineage-count").allTextContents();
  const numbers = counts.map((c) => Number(c.replace(/\D+/g, "")));
  expect(numbers.every((n) => n >= 2)).toBe(true);
  expect([...numbers].sort((a, b) => b - a)).toEqual(numbers);
  await page.screenshot({ path: path.join(SHOTS, "lineage.png") });
  const firstPrior = await prior.first().getAttribute("data-id");
  await prior.first().getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/papers/acl-citegraph/${encodeURIComponent(firstPrior!).replace(/\./g, "\\.")}$`));
});
