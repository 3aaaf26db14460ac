// The layer rule (lint/layers.mjs) through ESLint's Node API and the project's own config:
// an upward import fails `npx eslint .` (and so `npm test`); a downward one passes.
import assert from "node:assert/strict";
import path from "node:path";
import { describe, it } from "node:test";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { ESLint } from "eslint";
import { LIGHT_ENTRIES, SEPARATE_ENTRIES } from "./layers.mjs";

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
      'import { FACETS } from "@/lib/corpus";',
      'import { readPaperGraph } from "@/lib/graph";',
      'import { mulberry32 } from "@/lib/random";',
      'import { rrf } from "@/lib/fusion";',
      'import { buildTrie } from "./trie";',
      "export const all = [path, z, FACETS, readPaperGraph, mulberry32, rrf, buildTrie];",
      "",
    ].join("\n");
    assert.deepEqual(await lint("lib/genret/layer-probe.ts", good), []);
    assert.deepEqual(await lint("app/layer-probe.ts", 'import { relatedPapers } from "@/lib/query";\nexport const r = relatedPapers;\n'), []);
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

const lib = (): string => path.join(root, "lib");

describe("public surfaces (lint/layers.mjs, layers/public-surface)", () => {
  const SURFACE = "layers/public-surface";
  const surfaceErrors = async (file: string, code: string) => (await lint(file, code)).filter((m) => m.rule === SURFACE);
  const deep = [
    'import { Bm25Index } from "@/lib/retrieve/bm25-index";',
    'import type { PaperGraph } from "../graph/csr";',
    'export { loadGraph } from "@/lib/retrieve/graph-store";',
    'export async function later() { return import("@/lib/genret/model"); }',
    "export const all = [Bm25Index];",
    "export type G = PaperGraph;",
    "",
  ].join("\n");

  it("rejects deep imports into another lib folder (static, relative, re-export, dynamic, import type)", async () => {
    const errors = await surfaceErrors("lib/eval/surface-probe.ts", deep);
    assert.equal(errors.length, 4, JSON.stringify(errors));
    assert.match(errors[0].message, /through its public surface "@\/lib\/retrieve"/);
    assert.match(errors[1].message, /"@\/lib\/graph"/);
  });

  it("rejects them from app/, components/, workers/ and from tests in other folders", async () => {
    const code = 'import { loadGraph } from "@/lib/retrieve/graph-store";\nexport const l = loadGraph;\n';
    for (const file of ["app/surface-probe.ts", "components/surface-probe.tsx", "workers/surface-probe.ts", "lib/query/surface-probe.test.ts"]) {
      assert.equal((await surfaceErrors(file, code)).length, 1, file);
    }
  });

  it("accepts the surface, the folder's own files, test helpers and the light entries; scripts/ and e2e/ are not checked", async () => {
    const good = [
      'import { loadGraph, Bm25Index } from "@/lib/retrieve";',
      'import type { PaperGraph } from "@/lib/graph";',
      'import { FACETS } from "@/lib/corpus/types";',
      'import { ApiError } from "@/lib/http/client";',
      'import { mulberry32 } from "@/lib/random";',
      'import { relatedOptions } from "./options";',
      'import { migrateDeploy } from "@/lib/db/migrate";',
      'import { readBibtex } from "@/lib/corpus/formats";',
      "export const all = [loadGraph, Bm25Index, FACETS, ApiError, mulberry32, relatedOptions, migrateDeploy, readBibtex];",
      "export type G = PaperGraph;",
      "",
    ].join("\n");
    assert.deepEqual(await surfaceErrors("lib/query/surface-probe.ts", good), []);
    const helpers =
      'import { createTestDb } from "@/lib/db/testing";\nimport { onePaperPdf } from "@/lib/input/test-pdfs";\nexport const h = [createTestDb, onePaperPdf];\n';
    assert.deepEqual(await surfaceErrors("lib/cli/surface-probe.test.ts", helpers), []);
    for (const file of ["scripts/surface-probe.ts", "e2e/surface-probe.spec.ts"]) assert.deepEqual(await surfaceErrors(file, deep), [], file);
  });

  it("still rejects a module of a folder that is neither on its index nor a listed entry", async () => {
    const errors = await surfaceErrors(
      "lib/cli/surface-probe.ts",
      'import { loadSchemaEngine } from "@/lib/db/schema-engine";\nexport const s = loadSchemaEngine;\n',
    );
    assert.equal(errors.length, 1, JSON.stringify(errors));
  });

  it("each separate entry is a module (or folder index) that its folder's index does not re-export, and no light entry", () => {
    assert.ok(Object.keys(SEPARATE_ENTRIES).length >= 10);
    for (const [entry, reason] of Object.entries(SEPARATE_ENTRIES)) {
      const [, folder, ...inner] = entry.split("/");
      assert.ok(existsSync(path.join(root, `${entry}.ts`)) || existsSync(path.join(root, entry, "index.ts")), entry);
      assert.ok(reason.length > 20, `${entry} says why it is separate`);
      assert.ok(!Object.hasOwn(LIGHT_ENTRIES, entry), `${entry} is not also a light entry`);
      const index = readFileSync(path.join(lib(), folder, "index.ts"), "utf8");
      const spec = `./${inner.join("/")}`;
      assert.ok(!index.includes(`"${spec}"`) && !index.includes(`"${spec}/index"`), `lib/${folder}/index.ts does not import ${entry}`);
    }
  });

  it("rejects a folder's file importing its own index (a cycle), and lets its tests", async () => {
    for (const spec of ["@/lib/retrieve", ".", "./index"]) {
      const code = `import { loadGraph } from "${spec}";\nexport const l = loadGraph;\n`;
      const errors = await surfaceErrors("lib/retrieve/surface-probe.ts", code);
      assert.equal(errors.length, 1, spec);
      assert.match(errors[0].message, /its own index/);
      assert.deepEqual(await surfaceErrors("lib/retrieve/surface-probe.test.ts", code), [], spec);
    }
  });

  it("every lib folder but cli (the top: nothing imports it) has an index.ts, and each light entry is a module on its folder's index", () => {
    const lib = path.join(root, "lib");
    const folders = readdirSync(lib).filter((f) => statSync(path.join(lib, f)).isDirectory() && !["generated", "cli"].includes(f));
    assert.ok(folders.length >= 18, folders.join(" "));
    for (const folder of folders) assert.ok(existsSync(path.join(lib, folder, "index.ts")), `lib/${folder}/index.ts`);
    for (const entry of Object.keys(LIGHT_ENTRIES)) {
      const [, folder, ...inner] = entry.split("/");
      assert.ok(existsSync(path.join(root, `${entry}.ts`)), entry);
      const index = readFileSync(path.join(lib, folder, "index.ts"), "utf8");
      assert.ok(index.includes(`from "./${inner.join("/")}"`), `lib/${folder}/index.ts re-exports ${entry}`);
    }
  });
});
