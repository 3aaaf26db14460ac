/**
 * JSON Lines input shared by the OpenAlex, Semantic Scholar and arXiv readers: a file (plain
 * or gzipped, whatever its extension) or a directory of part files, one JSON object per line.
 */
import { existsSync, statSync } from "node:fs";
import { basename, relative, resolve } from "node:path";
import { readLines } from "../lines";
import type { CorpusCollector, Location } from "./collect";
import { dataFiles } from "./detect";

/** The data files a path names: itself, or the part files under it (name order). */
export function partFiles(path: string, what: string): { root: string; files: string[] } {
  const abs = resolve(path);
  if (!existsSync(abs)) throw new Error(`Corpus path not found: ${abs}`);
  if (statSync(abs).isDirectory()) {
    const files = dataFiles(abs);
    if (files.length === 0) throw new Error(`No ${what} files in ${abs}`);
    return { root: abs, files };
  }
  return { root: resolve(abs, ".."), files: [abs] };
}

/** How a file is named in messages: relative to the imported directory (shards share base names), else its base name. */
export function fileLabel(root: string, file: string): string {
  const rel = relative(root, file);
  return rel && !rel.startsWith("..") ? rel : basename(file);
}

/**
 * Calls `onRecord` with each JSON object of `file` and where it is. Blank lines are listed as
 * skipped; a line that is not a JSON object is a bad record (an error, or skipped under
 * --skip-invalid); a file that cannot be read past some line (a truncated .gz) is an error there.
 */
export async function forEachJsonLine(
  file: string,
  label: string,
  c: CorpusCollector,
  onRecord: (value: Record<string, unknown>, at: Location) => void,
): Promise<void> {
  let last = 0;
  try {
    for await (const { line, lineNo } of readLines(file)) {
      last = lineNo;
      const at = { file: label, line: lineNo };
      if (line.trim() === "") {
        c.skip(at, "blank line");
        continue;
      }
      let value: unknown;
      try {
        value = JSON.parse(line);
      } catch (err) {
        c.badRecord(at, `invalid JSON: ${(err as Error).message}`);
        continue;
      }
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        c.badRecord(at, "a record must be a JSON object");
        continue;
      }
      onRecord(value as Record<string, unknown>, at);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (!code?.startsWith("Z_")) throw err;
    c.error({ file: label, line: last + 1 }, `cannot read the file past this line: ${(err as Error).message}`);
  }
}

/** A string field, trimmed; null when absent, blank or not a string. */
export function text(v: unknown): string | null {
  if (typeof v !== "string") return null;
  const t = v.trim();
  return t ? t : null;
}

/** A nested field (a.b.c) without throwing on nulls. */
export function at(v: unknown, ...path: string[]): unknown {
  let cur = v;
  for (const p of path) {
    if (typeof cur !== "object" || cur === null) return undefined;
    cur = (cur as Record<string, unknown>)[p];
  }
  return cur;
}
