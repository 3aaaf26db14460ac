/**
 * Helpers of the import format tests: fixture files written into a temporary folder, and the
 * issues a rejected input reports.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before } from "node:test";
import { CorpusFormatError, formatIssue } from "../issues";
import { readCorpus, type ReadCorpusOptions } from "../read";
import type { InputIssue } from "../types";

/** A temporary folder for the calling test file (removed afterwards); `write` puts fixtures in it. */
export function useFixtureDir(prefix: string): { write(name: string, content: string | Buffer): string; readonly root: string } {
  let root = "";
  before(() => {
    root = mkdtempSync(path.join(tmpdir(), prefix));
  });
  after(() => rmSync(root, { recursive: true, force: true }));
  return {
    get root() {
      return root;
    },
    write(name, content) {
      const p = path.join(root, name);
      mkdirSync(path.dirname(p), { recursive: true });
      writeFileSync(p, content);
      return p;
    },
  };
}

/** The issues readCorpus rejects `p` with (failing when it does not reject it). */
export async function rejected(p: string, options?: ReadCorpusOptions): Promise<InputIssue[]> {
  try {
    await readCorpus(p, options);
  } catch (err) {
    assert.ok(err instanceof CorpusFormatError, `expected CorpusFormatError, got ${String(err)}`);
    return err.issues;
  }
  assert.fail(`readCorpus(${p}) should have rejected it`);
}

/** `file:line: message` lines, for compact assertions. */
export const located = (issues: readonly InputIssue[]) => issues.map(formatIssue);
