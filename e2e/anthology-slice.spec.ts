import { execFile } from "node:child_process";
import { createReadStream, existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { createGunzip } from "node:zlib";
import { expect, test } from "@playwright/test";
import { latestBuildWith } from "../lib/builds/build-dir";
import { config } from "../lib/config";
import { disconnectDb, getDb } from "../lib/db/client";
import { SHOTS } from "./shots";
import { pastePaper } from "./paste";

// The explorer on a second, larger kind of corpus (issue 18): the first lines of the 64k ACL
// Anthology abstracts, which come without facets and without citations. The store gets them the
// way a user's would: `graft import`, offline facet extraction, an LSA encoder fitted on the slice
// (no download), a graph build. Then the start page switches to that corpus, a pasted abstract is
// searched in it, and the results are the slice's papers with the facets that surfaced them.
// Set-up is skipped when the corpus already has a graph build (a retry, a kept store); otherwise
// it took 35–37 s on the 2-core machine at loads 5–11, most of it the CLI's start-up, once per
// command.

const CORPUS = "acl-anthology";
const SLICE_LINES = 400;
// A paper of the slice (line 317 of the file) whose title and abstract are pasted.
const PASTED_ID = "1999.mtsummit-1.37";
const FACETS = ["problems", "methods", "results", "contributions"];

interface SliceLine {
  id: string | null;
  title: string;
  abstract: string | null;
}

const settings = config();
const source = path.resolve(settings.GRAFT_SHARED_DATA, "acl-anthology-abstracts.jsonl.gz");
const work = path.join(settings.GRAFT_DATA_ROOT, "e2e-anthology-slice");
const sliceFile = path.join(work, `acl-anthology-${SLICE_LINES}.jsonl`);
const encoder = path.join(work, "lsa");

/** The first n lines of a gzipped JSONL file, read only as far as needed. */
async function firstLines(file: string, n: number): Promise<string[]> {
  const lines: string[] = [];
  const rl = createInterface({ input: createReadStream(file).pipe(createGunzip()), crlfDelay: Infinity });
  for await (const line of rl) {
    lines.push(line);
    if (lines.length === n) break;
  }
  rl.close();
  return lines;
}

/** Runs the Graft CLI as a user would (`graft <args>`), in this process's store. */
async function graft(...args: string[]): Promise<void> {
  const t0 = Date.now();
  await promisify(execFile)(process.execPath, ["--import", "tsx", "lib/cli/main.ts", ...args], { env: process.env, maxBuffer: 64 << 20 });
  console.log(`anthology slice: graft ${args[0]} ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

let slice: SliceLine[] = [];

test.beforeAll(async () => {
  test.setTimeout(180_000);
  expect(existsSync(source), `${source} (the shared data beside the clone)`).toBe(true);
  const lines = await firstLines(source, SLICE_LINES);
  slice = lines.map((l) => JSON.parse(l) as SliceLine);
  if (await latestBuildWith(getDb(), CORPUS, "graph.csr")) return;
  const t0 = Date.now();
  await mkdir(work, { recursive: true });
  await writeFile(sliceFile, lines.join("\n") + "\n");
  // The encoder needs only the file, so it is fitted while the papers go in (2 cores).
  await Promise.all([
    // 53 of the first 400 lines have a null id: skipped, as at 64k.
    graft("import", sliceFile, "--corpus", CORPUS, "--skip-invalid").then(() => graft("extract", "--corpus", CORPUS)),
    graft("fit-encoder", "--input", sliceFile, "--out", encoder, "--dims", "64"),
  ]);
  await graft("build", "--stage", "graph", "--corpus", CORPUS, "--embedder", `lsa:${encoder}`);
  console.log(`anthology slice: set-up ${((Date.now() - t0) / 1000).toFixed(1)} s`);
});
test.afterAll(() => disconnectDb());

test("the explorer switches to a slice of the ACL Anthology and finds its papers for a pasted abstract", async ({ page }) => {
  // The corpus's first query loads its build and indexes (10–18 s measured on 2 busy cores).
  test.setTimeout(60_000);
  const byId = new Map(slice.filter((p) => p.id).map((p) => [p.id as string, p]));
  const pasted = byId.get(PASTED_ID);
  expect(pasted?.abstract, `${PASTED_ID} is in the first ${SLICE_LINES} lines`).toBeTruthy();

  await page.goto("/");
  const corpusSwitch = page.getByRole("combobox", { name: "Corpus" });
  await expect(corpusSwitch.locator(`option[value="${CORPUS}"]`)).toHaveText(new RegExp(`^${CORPUS} \\(`));
  await corpusSwitch.selectOption(CORPUS);
  await expect(page).toHaveURL(new RegExp(`\\?corpus=${CORPUS}$`));

  await pastePaper(page, `${pasted!.title}\n\n${pasted!.abstract}`);
  await page.getByRole("button", { name: "Find related papers" }).click();
  await expect(page.getByTestId("result").first()).toBeVisible({ timeout: 40_000 });
  await expect(page.getByTestId("query-title")).toHaveText(pasted!.title);

  const rows = await page.getByTestId("result").evaluateAll((els) =>
    els.map((el) => ({
      id: el.getAttribute("data-id") ?? "",
      title: el.querySelector("[data-testid=result-title]")?.textContent ?? "",
      facets: [...el.querySelectorAll("[data-testid=facet-chip]")].map((c) => c.getAttribute("data-facet")),
    })),
  );
  expect(rows.length).toBeGreaterThan(0);
  // Every result is a paper of the slice, under its own title, credited by at least one facet.
  for (const r of rows) {
    expect(byId.has(r.id), `${r.id} is a paper of the slice`).toBe(true);
    expect(r.title).toBe(byId.get(r.id)!.title);
    expect(r.facets.length, `${r.title} has facet chips`).toBeGreaterThan(0);
    for (const f of r.facets) expect(FACETS).toContain(f);
  }
  // The corpus's copy of the pasted paper is the nearest.
  expect(rows.slice(0, 3).map((r) => r.id)).toContain(PASTED_ID);

  // Provenance: "why related" sets the pasted paper's item beside the result's, per facet.
  const first = page.getByTestId("result").first();
  await first.getByRole("button", { name: "Why related" }).click();
  const why = first.getByTestId("why-related");
  await expect(why.getByRole("region")).toHaveCount(rows[0].facets.length);
  await expect(why.getByTestId("evidence-query").first()).not.toBeEmpty();
  await expect(why.getByTestId("evidence-paper").first()).not.toBeEmpty();
  await page.screenshot({ path: path.join(SHOTS, "explore-anthology-slice.png") });
});
