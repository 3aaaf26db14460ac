/**
 * `npm run config:readme`: writes the README's configuration table from lib/config.ts (every
 * setting, its default and its meaning), between the config:begin and config:end markers.
 * lib/config.test.ts fails when the two differ; `--check` exits 1 instead of writing.
 */
import { readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { configTable } from "@/lib/config";
import { repoRoot } from "@/lib/paths";

export const BEGIN = "<!-- config:begin: generated from lib/config.ts by `npm run config:readme` -->";
export const END = "<!-- config:end -->";

/** The README with its table replaced by the current one. */
export function withTable(readme: string): string {
  const a = readme.indexOf(BEGIN);
  const b = readme.indexOf(END);
  if (a < 0 || b < a) throw new Error(`README.md has no ${BEGIN} … ${END} block`);
  return `${readme.slice(0, a + BEGIN.length)}\n${configTable()}\n${readme.slice(b)}`;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const file = path.join(repoRoot, "README.md");
  const before = readFileSync(file, "utf8");
  const after = withTable(before);
  if (process.argv.includes("--check")) {
    process.stdout.write(
      before === after ? "README.md: the configuration table is current\n" : "README.md: the configuration table is stale: npm run config:readme\n",
    );
    process.exitCode = before === after ? 0 : 1;
  } else if (before !== after) {
    writeFileSync(file, after);
    process.stdout.write("README.md: configuration table written\n");
  } else process.stdout.write("README.md: the configuration table is current\n");
}
