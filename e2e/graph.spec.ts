import { readFile } from "node:fs/promises";
import path from "node:path";
import { expect, test, type Locator, type Page } from "@playwright/test";
import { SHOTS } from "./shots";

// The typed graph view (cytoscape on a canvas): nodes are found through the cytoscape instance
// the component leaves on its container, then clicked with the real mouse at their position on
// screen, so the tests exercise cytoscape's own event handling.

const EXAMPLE = "C16-1030";

type Cy = {
  nodes: (sel?: string) => { length: number; map: <T>(f: (n: CyNode) => T) => T[] };
  edges: (sel?: string) => { length: number };
  getElementById: (id: string) => CyNode;
  zoom: () => number;
};
type CyNode = { id: () => string; renderedPosition: () => { x: number; y: number }; visible: () => boolean };

async function openGraph(page: Page, url: string): Promise<Locator> {
  await page.goto(url);
  const canvas = page.getByTestId("graph-canvas");
  await expect(canvas).toHaveAttribute("data-ready", "true", { timeout: 20_000 });
  return canvas;
}

/** Ids of the visible nodes, best-ranked first as listed beside the graph. */
async function visibleNodeIds(canvas: Locator): Promise<string[]> {
  return canvas.evaluate((el) => {
    const cy = (el as unknown as { __cy: Cy }).__cy;
    return cy.nodes(":visible").map((n) => n.id());
  });
}

async function counts(canvas: Locator) {
  return canvas.evaluate((el) => {
    const cy = (el as unknown as { __cy: Cy }).__cy;
    return { nodes: cy.nodes(":visible").length, edges: cy.edges(":visible").length, all: cy.nodes().length };
  });
}

/** Screen position of a node, inside the canvas's box. */
async function nodePoint(canvas: Locator, id: string): Promise<{ x: number; y: number }> {
  await canvas.scrollIntoViewIfNeeded();
  return canvas.evaluate((el, id) => {
    const cy = (el as unknown as { __cy: Cy }).__cy;
    const p = cy.getElementById(id).renderedPosition();
    const box = el.getBoundingClientRect();
    return { x: box.left + p.x, y: box.top + p.y };
  }, id);
}

test("graph view: click a node, hover card, facet toggles, layouts, expand, PNG", async ({ page }) => {
  const canvas = await openGraph(page, `/?paper=${EXAMPLE}&view=graph`);
  const view = page.getByTestId("graph-view");
  const start = await counts(canvas);
  expect(start.nodes).toBe(21); // the query and its 20 related papers
  expect(start.edges).toBeGreaterThanOrEqual(20); // one edge per credited facet
  await page.screenshot({ path: path.join(SHOTS, "graph.png") });

  // Hover shows a card; a click selects the paper and opens its details.
  const target = (await visibleNodeIds(canvas)).find((id) => id !== EXAMPLE)!;
  const p = await nodePoint(canvas, target);
  await page.mouse.move(p.x, p.y);
  await expect(page.getByTestId("graph-hover-card")).toBeVisible();
  await page.mouse.click(p.x, p.y);
  const panel = page.getByTestId("graph-node-panel");
  await expect(panel).toBeVisible();
  const title = await panel.getByTestId("graph-node-title").textContent();
  expect(title?.length).toBeGreaterThan(0);
  await expect(panel.getByRole("link", { name: "Open paper" })).toHaveAttribute("href", `/papers/acl-citegraph/${encodeURIComponent(target)}`);

  // Expanding adds the paper's own related papers around it.
  await panel.getByRole("button", { name: "Expand neighbourhood" }).click();
  await expect(panel.getByText("Neighbourhood shown")).toBeVisible();
  const grown = await counts(canvas);
  expect(grown.all).toBeGreaterThan(start.all);
  await page.screenshot({ path: path.join(SHOTS, "graph-expanded.png") });

  // Turning a facet off hides its edges and the papers only it linked.
  await view.getByRole("checkbox", { name: "Methods" }).click();
  await expect(view.getByRole("checkbox", { name: "Methods" })).not.toBeChecked();
  const fewer = await counts(canvas);
  expect(fewer.edges).toBeLessThan(grown.edges);
  expect(fewer.nodes).toBeLessThanOrEqual(grown.nodes);
  await view.getByRole("checkbox", { name: "Methods" }).click();
  await expect(view.getByRole("checkbox", { name: "Methods" })).toBeChecked();
  expect((await counts(canvas)).edges).toBe(grown.edges);

  // The concentric layout puts the query in the middle of the canvas.
  await view.getByText("Rings by rank").click();
  const centre = await canvas.evaluate((el, id) => {
    const cy = (el as unknown as { __cy: Cy }).__cy;
    const q = cy.getElementById(id).renderedPosition();
    const others = cy.nodes(":visible").map((n) => n.renderedPosition());
    const mean = others.reduce((a, b) => ({ x: a.x + b.x / others.length, y: a.y + b.y / others.length }), { x: 0, y: 0 });
    return { q, mean };
  }, EXAMPLE);
  expect(Math.abs(centre.q.x - centre.mean.x)).toBeLessThan(60);
  expect(Math.abs(centre.q.y - centre.mean.y)).toBeLessThan(60);

  // Zoom buttons change the zoom level.
  const z0 = await canvas.evaluate((el) => (el as unknown as { __cy: Cy }).__cy.zoom());
  await view.getByRole("button", { name: "Zoom in" }).click();
  expect(await canvas.evaluate((el) => (el as unknown as { __cy: Cy }).__cy.zoom())).toBeGreaterThan(z0);
  await view.getByRole("button", { name: "Fit to view" }).click();

  // PNG export: a real PNG file.
  const [png] = await Promise.all([page.waitForEvent("download"), view.getByRole("button", { name: "PNG" }).click()]);
  expect(png.suggestedFilename()).toMatch(/^graft-graph-.+\.png$/);
  const bytes = await readFile((await png.path())!);
  expect([...bytes.subarray(0, 8)]).toEqual([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  expect(bytes.length).toBeGreaterThan(10_000);

  // Clicking "Open paper" goes to the paper's page.
  await page.mouse.click((await nodePoint(canvas, target)).x, (await nodePoint(canvas, target)).y);
  await panel.getByRole("link", { name: "Open paper" }).click();
  await expect(page).toHaveURL(new RegExp(`/papers/acl-citegraph/`));
  await expect(page.getByRole("heading", { level: 1 })).toHaveText(title!);
});

test("graph nodes are reachable from the keyboard through the list beside the canvas", async ({ page }) => {
  await openGraph(page, `/?paper=${EXAMPLE}&view=graph`);
  const list = page.getByTestId("graph-node-list");
  const second = list.getByRole("button").nth(2);
  const name = (await second.textContent())!.replace(/^\d+/, "").trim();
  await second.focus();
  await page.keyboard.press("Enter");
  await expect(page.getByTestId("graph-node-title")).toHaveText(name);
  await page.getByRole("button", { name: "Close details" }).click();
  await expect(list).toBeVisible();
});

test("the graph stays responsive with 200+ nodes", async ({ page }) => {
  // About 17 expansions, one request each, then two layouts of 200+ nodes: minutes on a busy
  // 2-core machine (120 s ran out there with every other step passing).
  test.setTimeout(240_000);
  // The default retriever (hybrid, fused by RRF) fills k = 100; graph-RRF keeps only the
  // candidates an edge supports, which a citation-weighted graph leaves at a few dozen.
  const canvas = await openGraph(page, `/?paper=${EXAMPLE}&view=graph&k=100`);
  const results = Number((await page.getByTestId("results-summary").locator("span").first().textContent()) ?? 0);
  expect(results).toBeGreaterThan(50);
  expect((await counts(canvas)).all).toBe(results + 1);
  // Grow it past 200 nodes by expanding papers from the list (each adds up to 10). The list holds
  // the query, then the results by rank, then the papers expansions add. The lowest-ranked results
  // go first: their neighbourhoods overlap the query's least (on the demo corpus 17 expansions
  // reach 200 nodes this way, 34 from the best-ranked down).
  const panel = page.getByTestId("graph-node-panel");
  for (let i = results; (await counts(canvas)).all < 200 && i >= 1; i--) {
    await page.getByTestId("graph-node-list").getByRole("button").nth(i).click();
    const expand = panel.getByRole("button", { name: "Expand neighbourhood" });
    if (await expand.isVisible()) {
      await expand.click();
      await expect(panel.getByText("Neighbourhood shown")).toBeVisible();
    }
    await panel.getByRole("button", { name: "Close details" }).click();
  }
  const big = await counts(canvas);
  expect(big.all).toBeGreaterThanOrEqual(200);

  // A global layout of the whole graph, and frames while zooming: both must stay interactive.
  const view = page.getByTestId("graph-view");
  const layoutMs = async (name: string) => {
    await canvas.evaluate((el) => el.removeAttribute("data-layout-ms"));
    await view.getByText(name, { exact: true }).click();
    await expect(canvas).toHaveAttribute("data-layout-ms", /^\d+$/);
    return Number(await canvas.getAttribute("data-layout-ms"));
  };
  const ringsMs = await layoutMs("Rings by rank");
  const forceMs = await layoutMs("Force");
  const frames = await canvas.evaluate(async (el) => {
    const cy = (el as unknown as { __cy: Cy & { zoom: (o?: unknown) => number; width: () => number; height: () => number } }).__cy;
    const gaps: number[] = [];
    let last = performance.now();
    for (let i = 0; i < 30; i++) {
      cy.zoom({ level: cy.zoom() * (i % 2 ? 1.08 : 0.93), renderedPosition: { x: cy.width() / 2, y: cy.height() / 2 } });
      await new Promise((r) => requestAnimationFrame(r));
      const now = performance.now();
      gaps.push(now - last);
      last = now;
    }
    gaps.sort((a, b) => a - b);
    return { median: gaps[15], worst: gaps[29] };
  });
  console.log(
    `graph with ${big.all} nodes, ${big.edges} edges: force layout ${forceMs} ms, rings ${ringsMs} ms; zoom frames median ${frames.median.toFixed(1)} ms, worst ${frames.worst.toFixed(1)} ms`,
  );
  expect(forceMs).toBeLessThan(5_000);
  expect(ringsMs).toBeLessThan(1_000);
  expect(frames.median).toBeLessThan(100);
});

test("a paper page shows its related papers as a graph too", async ({ page }) => {
  await page.goto(`/papers/acl-citegraph/${EXAMPLE}`);
  await page.getByTestId("paper-graph-tab").click();
  const canvas = page.getByTestId("graph-canvas");
  await expect(canvas).toHaveAttribute("data-ready", "true");
  expect((await counts(canvas)).nodes).toBe(21);
});
