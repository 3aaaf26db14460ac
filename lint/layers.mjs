// The layer rule of lib/ (README "Architecture"): data flows one way, so a folder of lib/ may
// import its own folder and the folders of LOWER tiers, never one of its own tier or above.
// app/, components/, workers/, scripts/, e2e/ and the root files sit on top of everything and
// are not checked; lib/ never imports them (tests excepted: a test may render a component).
//
// A new folder under lib/ must be given a tier here, or every import into or out of it is
// reported.
import { existsSync, statSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

/** Tiers of lib/ folders, lowest first ("(root)" = the files directly in lib/). */
export const LAYERS = [
  // base: usable by every folder
  ["(root)", "generated", "text"], // shared helpers (errors, config, paths, random, progress), the Prisma client, the Llama-3 tokenizer
  ["db"], // store client, DATABASE_URL, migrations
  ["builds"], // versioned build directories and manifests
  // the data flow
  ["corpus"],
  ["http"], // framework-free request/response helpers; maps the core's error codes to statuses
  ["input"],
  ["embed"], // text → unit vectors; below facets because the audit's grounding embeds
  ["facets"],
  ["graph"],
  ["fusion"],
  ["genret"],
  ["retrieve"],
  ["query"], // relatedPapers: what the CLI, the API and the web app serve
  ["eval"], // above query: the report measures what is served (relatedPapers), never a copy of it
  // beside the flow, and on top
  ["auth", "security", "export"],
  ["annotation", "demo"],
  ["jobs"],
  ["cli"],
];

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const TIER = new Map(LAYERS.flatMap((tier, i) => tier.map((folder) => [folder, i])));
const TOP = new Set(["app", "components", "workers", "scripts", "e2e"]);

/** The lib/ folder of a repository-relative path, "(root)" for a file directly in lib/, or null outside lib/. */
function libFolder(rel) {
  const parts = rel.split(path.sep);
  if (parts[0] !== "lib" || parts.length < 2) return null;
  if (parts.length > 2) return parts[1];
  // lib/<name>: a folder (its index) or a file (lib/random, lib/random.ts)
  const abs = path.join(ROOT, "lib", parts[1]);
  return existsSync(abs) && statSync(abs).isDirectory() ? parts[1] : "(root)";
}

/** Repository-relative path an import specifier points at, or null for a package. */
function resolveSpecifier(spec, filename) {
  if (spec.startsWith("@/")) return spec.slice(2).split("/").join(path.sep);
  if (spec === "." || spec === ".." || spec.startsWith("./") || spec.startsWith("../")) {
    return path.relative(ROOT, path.resolve(path.dirname(filename), spec));
  }
  return null;
}

const isTest = (rel) => /\.test\.tsx?$/.test(rel);

const layersRule = {
  meta: {
    type: "problem",
    docs: { description: "lib/ folders import only lower layers (lint/layers.mjs)" },
    schema: [],
    messages: {
      upward: 'lib/{{from}} may not import lib/{{to}} ({{spec}}): layers flow one way ({{order}}); see lint/layers.mjs and README "Architecture"',
      unknown: "lib/{{folder}} has no layer: give it a tier in lint/layers.mjs",
      top: "lib/ may not import {{to}}/ ({{spec}}): app, components, workers and scripts sit on top of lib/",
    },
  },
  create(context) {
    const filename = context.physicalFilename ?? context.filename;
    const rel = path.relative(ROOT, filename);
    const from = libFolder(rel);
    if (from === null) return {};
    const check = (node, spec) => {
      if (typeof spec !== "string") return;
      const target = resolveSpecifier(spec, filename);
      if (target === null) return;
      const top = target.split(path.sep)[0];
      if (TOP.has(top)) {
        if (!isTest(rel)) context.report({ node, messageId: "top", data: { to: top, spec } });
        return;
      }
      const to = libFolder(target);
      if (to === null || to === from) return;
      for (const folder of [from, to]) {
        if (!TIER.has(folder)) {
          context.report({ node, messageId: "unknown", data: { folder } });
          return;
        }
      }
      const a = TIER.get(from);
      const b = TIER.get(to);
      if (b < a) return;
      const order = b === a ? `${from} and ${to} are siblings` : `${to} is above ${from}`;
      context.report({ node, messageId: "upward", data: { from, to, spec, order } });
    };
    const fromSource = (node) => node.source && check(node.source, node.source.value);
    return {
      ImportDeclaration: fromSource,
      ExportNamedDeclaration: fromSource,
      ExportAllDeclaration: fromSource,
      ImportExpression(node) {
        if (node.source.type === "Literal") check(node.source, node.source.value);
      },
      TSImportType(node) {
        const lit = node.argument?.literal ?? node.argument;
        if (lit?.type === "Literal") check(node, lit.value);
      },
      TSExternalModuleReference(node) {
        if (node.expression.type === "Literal") check(node, node.expression.value);
      },
    };
  },
};

export const layersPlugin = { rules: { "import-direction": layersRule } };
