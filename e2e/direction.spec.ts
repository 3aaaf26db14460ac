import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test, type Page } from "@playwright/test";
import { SHOTS } from "./shots";

// Earlier and later work (issue 27) on the demo corpus: each result says whether it was published
// before or after the query's year, with what that is measured from in its tooltip; "Earlier /
// Later / Both" narrows the list and lives in the URL; the CSV export carries the direction; for
// pasted text the year is inferred from the closest papers. A screenshot goes to SHOTS.

// A 2018 paper: the corpus (mostly 2017–2019) holds both its earlier and its later work.
const EXAMPLE = "C18-1046"; // "Implicit Discourse Relation Recognition using Neural Tensor Network with Interactive Attention …", 2018
const EXAMPLE_YEAR = 2018;

const PASTED = `Neural Machine Translation of Rare Words with Subword Units

Neural machine translation models typically operate with a fixed vocabulary, but translation is an open-vocabulary problem. We encode rare and unknown words as sequences of subword units, segmenting words with a byte pair encoding compression algorithm, and show that subword models improve over a back-off dictionary baseline on English to German and English to Russian translation.`;

/** Each result's year and its chip (direction and tooltip; null without a chip). */
async function resultDirections(page: Page) {
  return page.getByTestId("result").evaluateAll((els) =>
    els.map((el) => {
      const chip = el.querySelector("[data-testid=direction-chip]");
      return {
        year: Number(el.querySelector("[data-testid=result-year]")?.textContent),
        direction: chip?.getAttribute("data-direction") ?? null,
        title: chip?.getAttribute("title") ?? null,
      };
    }),
  );
}

test("each result says earlier or later work against the paper's year, and the filter keeps one kind", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto(`/?paper=${EXAMPLE}`);
  await expect(page.getByTestId("result")).toHaveCount(20, { timeout: 30_000 });
  await expect(page.getByTestId("query-year")).toContainText(String(EXAMPLE_YEAR));

  const all = await resultDirections(page);
  for (const r of all) {
    const expected = r.year < EXAMPLE_YEAR ? "earlier" : r.year > EXAMPLE_YEAR ? "later" : r.year === EXAMPLE_YEAR ? "neither" : null;
    expect(r.direction, `a paper from ${r.year}`).toBe(expected);
    if (r.direction === "earlier") expect(r.title).toBe(`Earlier work: published before the query paper's year ${EXAMPLE_YEAR}`);
    if (r.direction === "later") expect(r.title).toBe(`Later work: published after the query paper's year ${EXAMPLE_YEAR}`);
  }
  expect(all.some((r) => r.direction === "earlier")).toBe(true);
  expect(all.some((r) => r.direction === "later")).toBe(true);

  // Later work only: the URL carries it and every result is from after the paper's year.
  // The filter's state follows the URL, so the radio turns on after the navigation: click, then wait for it.
  await page.getByRole("radio", { name: "Later", exact: true }).click();
  await expect(page.getByRole("radio", { name: "Later", exact: true })).toBeChecked();
  await expect(page).toHaveURL(/direction=later/);
  await expect(async () => {
    const later = await resultDirections(page);
    expect(later.length).toBeGreaterThan(0);
    for (const r of later) {
      expect(r.direction).toBe("later");
      expect(r.year).toBeGreaterThan(EXAMPLE_YEAR);
    }
  }).toPass();
  await page.screenshot({ path: path.join(SHOTS, "explore-direction.png") });

  // Its CSV export says so in a direction column.
  await page.getByRole("button", { name: "Export", exact: true }).click();
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^CSV/ }).click()]);
  const rows = (await readFile((await csv.path())!, "utf8")).trim().split("\r\n");
  expect(rows[0]).toBe("rank,score,corpus,id,title,authors,year,venue,url,facets,direction");
  for (const row of rows.slice(1)) expect(row.endsWith(",later"), row).toBe(true);

  // Earlier work only, then both again (the URL back to the paper alone).
  // The export menu may still be open and take the first click: click until the radio is on.
  await expect(async () => {
    await page.getByRole("radio", { name: "Earlier", exact: true }).click();
    await expect(page.getByRole("radio", { name: "Earlier", exact: true })).toBeChecked({ timeout: 2_000 });
  }).toPass();
  await expect(page).toHaveURL(/direction=earlier/);
  await expect(async () => {
    const earlier = await resultDirections(page);
    expect(earlier.length).toBeGreaterThan(0);
    for (const r of earlier) {
      expect(r.direction).toBe("earlier");
      expect(r.year).toBeLessThan(EXAMPLE_YEAR);
    }
  }).toPass();
  await page.getByRole("button", { name: "Clear filters" }).click();
  await expect(page).not.toHaveURL(/direction=/);
  await expect(page.getByRole("radio", { name: "Both", exact: true })).toBeChecked();
  await expect(page.getByTestId("result")).toHaveCount(20);

  // The per-facet columns carry the chips too.
  await page.getByTestId("view-facets").click();
  await expect(page.getByTestId("per-facet-view").getByTestId("direction-chip").first()).toBeVisible();
});

test("pasted text: the year is inferred from the closest papers, and the chips say so", async ({ page }) => {
  test.setTimeout(90_000);
  await page.goto("/");
  await page.getByLabel("Title and abstract").fill(PASTED);
  await page.getByRole("button", { name: "Find related papers" }).click();
  await expect(page.getByTestId("result").first()).toBeVisible({ timeout: 60_000 });
  await expect(page.getByTestId("query-year")).toContainText("inferred from the closest papers");
  const chip = page.getByTestId("result").getByTestId("direction-chip").first();
  await expect(chip).toHaveAttribute("title", /the year inferred from the closest papers, \d{4}$/);
});
