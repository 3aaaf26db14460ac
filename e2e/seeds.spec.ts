import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { SHOTS } from "./shots";

// Several seeds at once (issue 19 part 3) on the demo corpus: the explorer opens a corpus paper,
// the paper itself and two of its results become seeds, "Find papers related to all 3 seeds"
// queries them together; each result says which seed(s) surfaced it, no seed is a result, and
// the CSV export names each result's seeds, the by-facet view and the graph show them too, and
// the shared URL (?seeds=A,B,C) restores the seeds and their results. Screenshots go to SHOTS.

const EXAMPLE = "C16-1030";

test("three seeds at once: provenance per seed, no seed among the results, the URL restores them", async ({ page }) => {
  test.setTimeout(120_000);
  await page.goto(`/?paper=${EXAMPLE}`);
  await expect(page.getByTestId("result").first()).toBeVisible({ timeout: 30_000 });

  // The picked paper, then its first two results.
  await page.getByTestId("seed-add-current").click();
  const results = page.getByTestId("result");
  const picked: string[] = [];
  for (const i of [0, 1]) {
    const r = results.nth(i);
    picked.push((await r.getAttribute("data-id")) ?? "");
    await r.getByTestId("seed-add").click();
    await expect(r.getByTestId("seed-add")).toHaveText("Seed");
  }
  const seeds = [EXAMPLE, ...picked];
  const tray = page.getByTestId("seed-tray");
  await expect(tray.getByTestId("seed")).toHaveCount(3);
  expect(await tray.getByTestId("seed").evaluateAll((els) => els.map((el) => el.getAttribute("data-id")))).toEqual(seeds);
  await expect(page).toHaveURL(new RegExp(`seeds=${seeds.join("%2C")}`));

  // All three at once.
  await tray.getByTestId("seeds-run").click();
  await expect(page.getByTestId("query-title")).toHaveText("Papers related to all 3 seeds");
  await expect(page.getByTestId("seed-results")).toBeVisible({ timeout: 60_000 });
  await expect(page).not.toHaveURL(/paper=/);
  const ids = await results.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")));
  expect(ids.length).toBeGreaterThan(0);
  for (const s of seeds) expect(ids).not.toContain(s);
  // Every result names the seed(s) that surfaced it, and each chip a seed of the tray.
  const chips = await results.evaluateAll((els) =>
    els.map((el) => [...el.querySelectorAll("[data-testid=seed-chip]")].map((c) => ({ seed: c.getAttribute("data-seed"), text: c.textContent }))),
  );
  for (const c of chips) {
    expect(c.length).toBeGreaterThan(0);
    for (const chip of c) {
      expect(seeds).toContain(chip.seed);
      expect(chip.text).toMatch(/^seed [123] #\d+$/);
    }
  }
  await expect(page.getByTestId("seed-legend").locator("li")).toHaveCount(3);
  // The tray now has every seed's title, not its id.
  await expect(tray.getByTestId("seed-title").first()).not.toHaveText(EXAMPLE);
  await page.screenshot({ path: path.join(SHOTS, "seeds.png") });

  // The CSV export: a seeds column naming, for every row, seeds of the tray (id#rank).
  await page.getByRole("button", { name: "Export", exact: true }).click();
  const [csv] = await Promise.all([page.waitForEvent("download"), page.getByRole("button", { name: /^CSV/ }).click()]);
  expect(csv.suggestedFilename()).toBe("graft-3-seeds.csv");
  const rows = (await readFile((await csv.path())!, "utf8")).trim().split("\r\n");
  expect(rows[0]).toBe("rank,score,corpus,id,title,authors,year,venue,url,facets,seeds");
  expect(rows).toHaveLength(ids.length + 1);
  for (const row of rows.slice(1)) {
    // The seeds column is last and never quoted (ids and ranks only).
    const credits = row.slice(row.lastIndexOf(",") + 1).split(" ");
    expect(credits.length).toBeGreaterThan(0);
    for (const c of credits) expect(seeds).toContain(c.replace(/#\d+$/, ""));
  }

  // By facet: each facet's fused results, each with the seed(s) that credited it through that facet.
  await page.getByTestId("view-facets").click();
  const perFacet = page.getByTestId("per-facet-view");
  await expect(perFacet).toBeVisible();
  const entries = perFacet.getByTestId("per-facet-entry");
  expect(await entries.count()).toBeGreaterThan(0);
  const entryChips = await entries.evaluateAll((els) =>
    els.map((el) => [...el.querySelectorAll("[data-testid=seed-chip]")].map((c) => c.getAttribute("data-seed"))),
  );
  for (const c of entryChips) {
    expect(c.length).toBeGreaterThan(0);
    for (const seed of c) expect(seeds).toContain(seed);
  }
  await page.screenshot({ path: path.join(SHOTS, "seeds-per-facet.png") });

  // The graph: the three seeds are its centres (S1-S3 in the list beside it), a result names its seeds.
  await page.getByTestId("view-graph").click();
  await expect(page.getByTestId("graph-canvas")).toHaveAttribute("data-ready", "true", { timeout: 20_000 });
  const nodeList = page.getByTestId("graph-node-list").getByRole("button");
  await expect(nodeList.filter({ hasText: /^S[123]/ })).toHaveCount(3);
  await nodeList.nth(3).click();
  await expect(page.getByTestId("graph-node-panel").getByTestId("graph-node-seeds")).toContainText(/seed [123] #\d+/);
  await page.screenshot({ path: path.join(SHOTS, "seeds-graph.png") });
  await page.getByTestId("view-list").click();
  await expect(results.first()).toBeVisible();

  // The shared link restores the seeds and their results.
  const url = page.url();
  await page.goto(url);
  await expect(page.getByTestId("seed-results")).toBeVisible({ timeout: 60_000 });
  expect(
    await page
      .getByTestId("seed-tray")
      .getByTestId("seed")
      .evaluateAll((els) => els.map((el) => el.getAttribute("data-id"))),
  ).toEqual(seeds);
  expect(await results.evaluateAll((els) => els.map((el) => el.getAttribute("data-id")))).toEqual(ids);

  // Removing a seed re-queries with the other two.
  await page.getByTestId("seed-tray").getByTestId("seed-remove").last().click();
  await expect(page.getByTestId("query-title")).toHaveText("Papers related to all 2 seeds");
  await expect(page.getByTestId("seed-legend").locator("li")).toHaveCount(2, { timeout: 60_000 });
});
