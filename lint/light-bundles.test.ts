// The code that must stay light imports lib/ through LIGHT_ENTRIES (lint/layers.mjs), not through
// the folders' index.ts: this follows its imports through the sources (type-only ones are erased
// by the compiler and not followed) and checks what it reaches.
// - The browser bundle ("use client" files): no Node built-in, store or native package, which
//   `next build` cannot put in a browser bundle.
// - The proxy's and instrumentation's own bundles and the worker threads: no folder's index.ts
//   (which loads the whole folder: Prisma, onnxruntime-node, pdfjs).
// - The query, the graph store, the job stages' registration and the eval harness: none of the
//   SEPARATE_ENTRIES (the schema engine, the import parsers, builds, training) when they load.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import ts from "typescript";
import { SEPARATE_ENTRIES } from "./layers.mjs";

const root = path.resolve(import.meta.dirname, "..");

/** Repository-relative source file an import specifier names, or null for a package. */
function resolveImport(spec: string, from: string): string | null {
  let base: string;
  if (spec.startsWith("@/")) base = spec.slice(2);
  else if (spec.startsWith(".")) base = path.relative(root, path.resolve(root, path.dirname(from), spec));
  else return null;
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    const abs = path.join(root, candidate);
    if (existsSync(abs) && statSync(abs).isFile()) return candidate;
  }
  return null;
}

interface ModuleImports {
  /** Specifiers whose code loads with the module (static and dynamic value imports). */
  values: string[];
  /** The static ones: what loads when the module itself loads. */
  statics: string[];
  useClient: boolean;
}

function isTypeOnly(node: ts.ImportDeclaration | ts.ExportDeclaration): boolean {
  if (ts.isExportDeclaration(node)) return node.isTypeOnly;
  const clause = node.importClause;
  if (!clause) return false;
  if (clause.isTypeOnly) return true;
  const named = clause.namedBindings;
  return !clause.name && named !== undefined && ts.isNamedImports(named) && named.elements.length > 0 && named.elements.every((e) => e.isTypeOnly);
}

function readImports(file: string): ModuleImports {
  const text = readFileSync(path.join(root, file), "utf8");
  if (!/\.(ts|tsx)$/.test(file)) return { values: [], statics: [], useClient: false };
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith(".tsx") ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const values: string[] = [];
  const statics: string[] = [];
  const visit = (node: ts.Node): void => {
    if ((ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      if (!isTypeOnly(node)) values.push(node.moduleSpecifier.text);
      if (!isTypeOnly(node)) statics.push(node.moduleSpecifier.text);
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteral(node.arguments[0])
    ) {
      values.push(node.arguments[0].text);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  const first = source.statements[0];
  const useClient = first !== undefined && ts.isExpressionStatement(first) && ts.isStringLiteral(first.expression) && first.expression.text === "use client";
  return { values, statics, useClient };
}

/** Every source file the start files load, with the packages and built-ins each imports. */
function reach(start: string[], which: "values" | "statics" = "values"): Map<string, string[]> {
  const reached = new Map<string, string[]>();
  const queue = [...start];
  while (queue.length) {
    const file = queue.pop()!;
    if (reached.has(file)) continue;
    const packages: string[] = [];
    reached.set(file, packages);
    for (const spec of readImports(file)[which]) {
      const target = resolveImport(spec, file);
      if (target !== null) queue.push(target);
      else if (!spec.startsWith("@/") && !spec.startsWith(".")) packages.push(spec);
    }
  }
  return reached;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(root, dir), { recursive: true, encoding: "utf8" })
    .filter((f) => /\.tsx?$/.test(f) && !/\.test\.tsx?$/.test(f))
    .map((f) => path.join(dir, f).split(path.sep).join("/"))
    .filter((f) => !f.startsWith("lib/generated/"));
}

const SERVER_ONLY = /^(node:|fs$|fs\/|path$|os$|crypto$|child_process$|worker_threads$|@prisma\/|onnxruntime-node$|hnswlib-node$|better-sqlite3$|pdfjs-dist)/;
const serverImports = (reached: Map<string, string[]>): string[] =>
  [...reached].flatMap(([file, packages]) => packages.filter((p) => SERVER_ONLY.test(p)).map((p) => `${file} imports ${p}`));
const indexes = (reached: Map<string, string[]>): string[] => [...reached.keys()].filter((f) => /^lib\/[^/]+\/index\.tsx?$/.test(f));

describe("light bundles", () => {
  const clientFiles = ["app", "components", "lib"].flatMap(sourceFiles).filter((f) => readImports(f).useClient);

  it("the browser bundle reaches no Node built-in, store or native package", () => {
    assert.ok(clientFiles.length >= 20, `"use client" files found: ${clientFiles.length}`);
    const reached = reach(clientFiles);
    // It does reach lib/: the light entries are what it reads there.
    for (const entry of ["lib/corpus/types.ts", "lib/http/client.ts", "lib/query/types.ts"]) assert.ok(reached.has(entry), entry);
    assert.deepEqual(serverImports(reached), []);
  });

  it("the check sees server code when it is there (a route reaches the store and the native packages)", () => {
    const reached = reach(["app/api/related/route.ts"]);
    const found = serverImports(reached).join("\n");
    assert.match(found, /@prisma\//);
    assert.match(found, /onnxruntime-node/);
    assert.ok(indexes(reached).includes("lib/db/index.ts"));
  });

  it("the proxy, instrumentation and the worker threads load no folder's index", () => {
    const entries = [
      "proxy.ts",
      "instrumentation.ts",
      "lib/graph/lexical-worker.ts",
      "lib/facets/offline/worker.ts",
      "lib/embed/worker.ts",
      "lib/embed/registry.ts",
    ];
    for (const entry of entries) {
      assert.ok(existsSync(path.join(root, entry)), entry);
      assert.deepEqual(indexes(reach([entry])), [], entry);
    }
  });

  it("the query, the graph store, the job stages' registration and the eval harness load no separate entry they do not need", () => {
    // What each loads when it is imported (dynamic imports load later, when a stage or a command runs).
    const allowed: Record<string, string[]> = {
      "lib/query/related.ts": [],
      "lib/retrieve/graph-store.ts": [],
      "lib/jobs/stages/index.ts": ["lib/jobs/stages"],
      "lib/eval/harness.ts": ["lib/eval/harness", "lib/graph/corpus-data", "lib/embed/parallel", "lib/corpus/read", "lib/corpus/csfcube"],
    };
    const separate = (file: string): string | undefined => Object.keys(SEPARATE_ENTRIES).find((e) => file === `${e}.ts` || file === `${e}/index.ts`);
    const HEAVY = /^(@prisma\/schema-engine-wasm|@retorquere\/bibtex-parser|@citation-js\/)/;
    for (const [start, ok] of Object.entries(allowed)) {
      const reached = reach([start], "statics");
      assert.ok(reached.size > 20, `${start} reaches ${reached.size} files`);
      const found = [...reached.keys()].map(separate).filter((e): e is string => e !== undefined && !ok.includes(e));
      assert.deepEqual(found, [], start);
      const heavy = [...reached].flatMap(([file, packages]) => packages.filter((p) => HEAVY.test(p)).map((p) => `${file} imports ${p}`));
      assert.deepEqual(heavy, [], start);
    }
  });

  it("the check sees a separate entry when one is loaded (the CLI's db command loads the migrations)", () => {
    const reached = reach(["lib/cli/commands/db.ts"], "statics");
    assert.ok(reached.has("lib/db/migrate.ts"));
  });
});
