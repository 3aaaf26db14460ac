/**
 * CSFCube's dev fold (../shared/data/csfcube-dev, CC BY-NC 4.0) as a directory `graft import` reads:
 *   npm run data:csfcube [-- --facets labels|none] [--out .graft/imports/csfcube-dev]
 *   npm run graft -- import .graft/imports/csfcube-dev --corpus csfcube-dev
 * --facets labels (default): CSFCube's sentence labels as facets (background → problems, method →
 * methods, result → results); none: no facets, run `graft extract --corpus …` after the import.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { convertCsfcube, type CsfcubeFacetSource } from "@/lib/corpus/csfcube";
import { dataRoot, sharedDataDir } from "@/lib/paths";

const { values } = parseArgs({
  options: {
    facets: { type: "string", default: "labels" },
    dir: { type: "string", default: path.join(sharedDataDir(), "csfcube-dev") },
    out: { type: "string" },
  },
});
if (values.facets !== "labels" && values.facets !== "none") {
  console.error("--facets must be labels or none");
  process.exit(2);
}
const facets = values.facets as CsfcubeFacetSource;
const out = path.resolve(values.out ?? path.join(dataRoot(), "imports", facets === "labels" ? "csfcube-dev" : "csfcube-dev-offline"));
const { lines, notes } = convertCsfcube(readFileSync(path.join(values.dir, "abstracts.jsonl"), "utf8"), facets);
mkdirSync(out, { recursive: true });
writeFileSync(path.join(out, "papers.jsonl"), lines.map((l) => JSON.stringify(l)).join("\n") + "\n");
for (const n of notes) console.error(`note: ${n}`);
console.log(`${lines.length} papers (facets: ${facets === "labels" ? "CSFCube's sentence labels" : "none, run graft extract"}) → ${path.join(out, "papers.jsonl")}`);
