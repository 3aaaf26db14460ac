import path from "node:path";
import { expect, test } from "@playwright/test";
import examples from "../lib/demo/examples.json" with { type: "json" };
import { SHOTS } from "./shots";

// Presentation mode: a curated example, stepped through with the keyboard and the buttons.

test("run the demo: facets → per-facet lists → fused result with provenance → graph", async ({ page }) => {
  await page.goto("/demo");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Different facets surface different papers");
  const cards = page.getByTestId("demo-examples").getByRole("button");
  await expect(cards).toHaveCount(examples.examples.length);
  await page.screenshot({ path: path.join(SHOTS, "demo-index.png") });

  const example = examples.examples[0];
  await cards.first().click();
  await expect(page).toHaveURL(new RegExp(`/demo\\?example=${example.paperId}&step=1$`));
  const title = page.getByTestId("demo-step-title");

  // 1: the query's four facets, each with its items.
  await expect(title).toHaveText("The query, as four facets");
  const facets = page.getByTestId("demo-facets");
  for (const f of ["Problems", "Methods", "Results", "Contributions"]) {
    const section = facets.getByRole("region", { name: f });
    await expect(section).toBeVisible();
    expect(await section.getByRole("listitem").count(), `${f} items`).toBeGreaterThan(0);
  }
  await page.screenshot({ path: path.join(SHOTS, "demo-1-facets.png") });

  // 2 (arrow key): each facet's own list; some papers only one facet found.
  await page.keyboard.press("ArrowRight");
  await expect(title).toHaveText("Each facet retrieves on its own");
  await expect(page).toHaveURL(/step=2$/);
  for (const f of ["problems", "methods", "results", "contributions"])
    await expect(page.getByTestId(`per-facet-${f}`).getByTestId("per-facet-entry")).toHaveCount(6);
  expect(await page.getByText("only this facet").count()).toBeGreaterThan(3);
  await page.screenshot({ path: path.join(SHOTS, "demo-2-per-facet.png") });

  // 3 (button): the fused list, with a paper one facet alone surfaced and its evidence.
  await page.getByTestId("demo-next").click();
  await expect(title).toHaveText("Fused, with provenance");
  const featured = page.getByTestId("demo-featured");
  await expect(featured.getByRole("heading", { level: 2 })).toContainText(/alone surfaced “.+” at rank \d+/);
  await expect(featured.getByTestId("evidence-query")).toHaveCount(1);
  await expect(featured.getByTestId("evidence-paper")).not.toBeEmpty();
  await expect(page.getByTestId("result")).toHaveCount(10);
  await page.screenshot({ path: path.join(SHOTS, "demo-3-fused.png") });

  // 4: the typed graph around the query.
  await page.keyboard.press("ArrowRight");
  await expect(title).toHaveText("The typed graph");
  const canvas = page.getByTestId("graph-canvas");
  await expect(canvas).toHaveAttribute("data-ready", "true");
  await expect(canvas).toHaveAttribute("data-nodes", "11");
  await page.screenshot({ path: path.join(SHOTS, "demo-4-graph.png") });

  // Back with the arrow key, jump with a number, leave with Escape.
  await page.keyboard.press("ArrowLeft");
  await expect(title).toHaveText("Fused, with provenance");
  await page.keyboard.press("1");
  await expect(title).toHaveText("The query, as four facets");
  await page.keyboard.press("Escape");
  await expect(page).toHaveURL(/\/demo$/);
});

test("a demo slide survives a reload", async ({ page }) => {
  const example = examples.examples[1];
  await page.goto(`/demo?example=${encodeURIComponent(example.paperId)}&step=3`);
  await expect(page.getByTestId("demo-step-title")).toHaveText("Fused, with provenance");
  await expect(page.getByText(example.title).first()).toBeVisible();
  await expect(page.getByTestId("result").first()).toBeVisible();
});
