// The layer rule (lint/layers.mjs) through ESLint's Node API and the project's own config:
// an upward import fails `npx eslint .` (and so `npm test`); a downward one passes.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { ESLint } from "eslint";

const root = path.resolve(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(root, "eslint.config.mjs") });
const RULE = "layers/import-direction";

async function lint(file: string, code: string): Promise<{ rule: string | null; message: string }[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => ({ rule: m.ruleId, message: m.message }));
}

describe("layer rule", () => {
  it("rejects a graph module importing genret (static, relative, dynamic, re-export, import type)", async () => {
    const code = [
      'import { buildTrie } from "@/lib/genret/trie";',
      'import type { DocIdIndex } from "../genret/docid";',
      'export { distill } from "@/lib/genret/distill";',
      'export async function later() { return import("@/lib/genret/model"); }',
      "export const t = buildTrie;",
      "export type T = DocIdIndex;",
      "",
    ].join("\n");
    const messages = await lint("lib/graph/layer-probe.ts", code);
    const errors = messages.filter((m) => m.rule === RULE);
    assert.equal(errors.length, 4, JSON.stringify(messages));
    assert.match(errors[0].message, /lib\/graph may not import lib\/genret/);
  });

  it("rejects query importing eval (eval sits above: it measures what query serves) and lib importing app/ outside tests", async () => {
    const query = await lint("lib/query/layer-probe.ts", 'import { recallAtK } from "@/lib/eval/metrics";\nexport const r = recallAtK;\n');
    assert.equal(query.filter((m) => m.rule === RULE).length, 1, JSON.stringify(query));
    const app = await lint("lib/corpus/layer-probe.ts", 'import Page from "@/app/page";\nexport const p = Page;\n');
    assert.equal(app.filter((m) => m.rule === RULE).length, 1, JSON.stringify(app));
  });

  it("accepts imports of lower layers, of the own folder, of packages; files outside lib are not checked", async () => {
    const good = [
      'import path from "node:path";',
      'import { z } from "zod";',
      'import { FACETS } from "@/lib/corpus/types";',
      'import { readPaperGraph } from "@/lib/graph/csr";',
      'import { mulberry32 } from "@/lib/random";',
      'import { rrf } from "@/lib/fusion";',
      'import { buildTrie } from "./trie";',
      "export const all = [path, z, FACETS, readPaperGraph, mulberry32, rrf, buildTrie];",
      "",
    ].join("\n");
    assert.deepEqual(await lint("lib/genret/layer-probe.ts", good), []);
    assert.deepEqual(await lint("app/layer-probe.ts", 'import { relatedPapers } from "@/lib/query/related";\nexport const r = relatedPapers;\n'), []);
  });

  it("reports a lib/ folder missing from the layer table", async () => {
    const messages = await lint("lib/nowhere/layer-probe.ts", 'import { FACETS } from "@/lib/corpus/types";\nexport const f = FACETS;\n');
    assert.equal(messages.filter((m) => m.rule === RULE && /no layer/.test(m.message)).length, 1, JSON.stringify(messages));
  });
});

describe("test helpers stay in tests", () => {
  it("rejects a production module importing a testing.ts helper, and lets a test import it", async () => {
    const code = 'import { createTestDb } from "@/lib/db/testing";\nexport const t = createTestDb;\n';
    const prod = await lint("lib/query/testing-probe.ts", code);
    assert.equal(prod.filter((m) => m.rule === "no-restricted-imports").length, 1, JSON.stringify(prod));
    const test = await lint("lib/query/testing-probe.test.ts", code);
    assert.equal(test.filter((m) => m.rule === "no-restricted-imports").length, 0, JSON.stringify(test));
  });
});

describe("no HTTP in the core (eslint.config.mjs, NO_HTTP)", () => {
  const RESTRICTED = "no-restricted-imports";
  const http = 'import { STATUS_OF_CODE } from "@/lib/http/status";\nexport const s = STATUS_OF_CODE;\n';

  it("rejects a core module importing lib/http, by alias or relative path", async () => {
    for (const [file, code] of [
      ["lib/query/http-probe.ts", http],
      ["lib/annotation/http-probe.ts", 'import { json } from "@/lib/http/respond";\nexport const j = json;\n'],
      ["lib/cli/http-probe.ts", 'import { json } from "../http/respond";\nexport const j = json;\n'],
    ]) {
      const messages = await lint(file, code);
      assert.equal(messages.filter((m) => m.rule === RESTRICTED && /error codes, not HTTP/.test(m.message)).length, 1, `${file}: ${JSON.stringify(messages)}`);
    }
  });

  it("still rejects testing.ts in the same files (the two patterns share one rule)", async () => {
    const messages = await lint("lib/query/http-probe.ts", 'import { createTestDb } from "@/lib/db/testing";\nexport const c = createTestDb;\n');
    assert.equal(messages.filter((m) => m.rule === RESTRICTED && /for tests only/.test(m.message)).length, 1, JSON.stringify(messages));
  });

  it("accepts lib/http itself, the listed request handlers, tests and app/", async () => {
    for (const file of ["lib/http/probe.ts", "lib/query/request.ts", "lib/auth/sign-in.ts", "lib/query/probe.test.ts", "app/api/probe/route.ts"]) {
      const messages = await lint(file, http);
      assert.deepEqual(
        messages.filter((m) => m.rule === RESTRICTED),
        [],
        file,
      );
    }
  });
});
