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

/** ESLint visitors calling `check(node, spec)` for every form a module is named in: import, export … from, import(), import("…") types, import = require. */
function importVisitors(check) {
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
}

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
    return importVisitors(check);
  },
};

// The public surface of each lib/ folder (README "Architecture"): from outside lib/<folder>, code
// imports the folder's index.ts (`@/lib/<folder>`), never a file inside it, so what a folder keeps to
// itself can change without touching its callers. Its own files import each other by path, never
// through their own index (an index that imports its importer is a cycle).
//
// The exceptions, each for a reason:
// - scripts/ and e2e/ are not checked: benchmarks, trainers and end-to-end tests measure and drive
//   internals on purpose (a kernel, a trainer's options, a fixture's rows).
// - test helpers (testing.ts, *-testing.ts, fixtures/, test-pdfs.ts) are the test surface of a folder; the rule
//   TESTING_ONLY in eslint.config.mjs keeps testing.ts out of production code.
// - LIGHT_ENTRIES: small modules that code which must not load a folder's whole surface imports
//   directly. An index loads every file it names, and some of those need the store (Prisma), fs,
//   onnxruntime-node or pdfjs: the browser bundle ("use client" files and what they import) would
//   not build, and the proxy's and instrumentation's own bundles and the worker threads would take
//   all of it with them. Each of these is also on its folder's index.
// - SEPARATE_ENTRIES (below): modules kept off their folder's index, imported by their own path.
export const LIGHT_ENTRIES = {
  // the browser bundle ("use client" components and the lib/ files they import)
  "lib/annotation/evidence": "the rating view highlights evidence in the browser",
  "lib/annotation/study": "the new-study form checks its sizes in the browser",
  "lib/corpus/browse": "DEFAULT_CORPUS and corpusName, read by client components",
  "lib/corpus/types": "FACETS and the record types: the browser and the worker threads (lexical, offline extractor) read them",
  "lib/demo/disagreement": "the demo player runs in the browser",
  "lib/demo/examples": "the demo's examples, shown in the browser",
  "lib/embed/types": "dot(), used by the facet audit's checks in the browser",
  "lib/facets/audit/checks": "the facet audit view runs its checks in the browser",
  "lib/facets/audit/highlight": "the facet audit view highlights spans in the browser",
  "lib/http/client": "the browser's fetch wrapper",
  "lib/input/errors": "input error codes, told apart in the browser",
  "lib/input/text-amount": "the composer counts characters in the browser",
  "lib/query/library": "a reader's library, matched in the browser",
  "lib/query/types": "the query's result types and option lists, read in the browser",
  "lib/text/analyzer": "tokenizer of the demo (browser) and of the embed and lexical worker threads",
  // the job stages: each registers when lib/jobs loads (every admin route, the worker) and loads
  // what it runs only when it runs
  "lib/embed/registry": "embedder specs, parsed by the graph stage and the embed worker thread without loading an embedder",
  "lib/graph/similarity": "the graph stage's similarity parameters, read without the graph kernels (onnxruntime-node)",
  // the proxy's bundle (proxy.ts → lib/security/screen.ts screens every request)
  "lib/db/client": "the proxy's rate limits reach the store without the migration engine",
  "lib/http/status": "the proxy answers refusals with statuses",
  "lib/http/types": "the API's error body type",
  "lib/input/limits": "the proxy refuses bodies over the input limits without loading the PDF reader",
  // lib/http's responses and the CLI's exit codes tell store faults apart without the Prisma client
  "lib/db/faults": "lib/http/respond maps store faults to 503 for every route, many of which never load the store",
};

// SEPARATE_ENTRIES: a folder's second public entries (the one convention for them). Node loads
// every module an index names (nothing is tree-shaken at run time, and under tsx each module costs
// a loader round trip), so what the hot paths (a query, a route, the job stages' registration, a
// test file's imports) never need stays OFF the folder's index: heavy modules (the schema engine,
// the import parsers, training, builds, worker pools) and those only the CLI, the job stages or
// one route use. Code outside the folder imports such a module by its own path,
// `@/lib/<folder>/<module>`; each says what it holds and who uses it. None is on its folder's
// index (lint/layers.test.ts), and the query, the graph store and the job stages reach none of
// them when they load (lint/light-bundles.test.ts).
export const SEPARATE_ENTRIES = {
  "lib/auth/sign-in": "the login route's handler (rate limits and lockouts through rate-limiter-flexible); one route only",
  "lib/builds/prune": "removes old builds; the CLI only",
  "lib/corpus/csfcube": "the CSFCube benchmark's facet names; the eval only",
  "lib/corpus/formats": "the import formats' parsers (@retorquere/bibtex-parser, citation-js); imports and library uploads only",
  "lib/corpus/import": "importCorpus writes through the Prisma client; the import stage, the CLI and uploads only",
  "lib/corpus/read": "reads a corpus directory or an import file (the formats load when asked for); imports, training and corpus-wide evals",
  "lib/corpus/sample": "citation-preserving sampling and corpus statistics; the CLI only",
  "lib/corpus/write": "writes a corpus directory; the CLI only",
  "lib/db/migrate": "migrations: the Prisma schema engine (@prisma/schema-engine-wasm); the CLI and test databases only",
  "lib/db/rate-limits": "rate limits and lockouts (rate-limiter-flexible); the proxy's screen and sign-in only",
  "lib/embed/parallel": "embedding over a worker pool; builds, the audit and corpus-wide evals only",
  "lib/embed/shards": "embedding slices of a sharded build; the jobs only",
  "lib/embed/use-lite": "the USE-lite embedder (a TensorFlow.js model); createEmbedder loads it when asked for",
  "lib/eval/harness": "the evaluation harness (every retriever, baseline and suite); the CLI only",
  "lib/facets/audit/report": "renders a facet audit's report; the CLI only",
  "lib/facets/audit/run": "the facet audit over a corpus (the store, embedders); the CLI only",
  "lib/facets/extract-corpus": "facet extraction over a corpus (the store, LLM and offline worker pools); the CLI only",
  "lib/facets/provider": "chooses and builds a corpus extractor (LLM or offline); the CLI only",
  "lib/genret/build": "the generative retriever's training stage (packs, token priors, the Python trainer)",
  "lib/genret/pretrained": "installs the pretrained decoder into a build; the CLI only",
  "lib/graph/build": "the graph build stage (the store, embedders, lexical worker pool); jobs and the CLI only",
  "lib/graph/corpus-data": "a whole corpus's texts and vectors, embedded in parallel; the eval and training only",
  "lib/graph/neighbours": "a paper's graph neighbours from its build or the store; the paper page only",
  "lib/graph/shards": "the sharded graph build's blocks and store rows; the jobs only",
  "lib/jobs/stages": "registers the built-in stages (a side effect): the worker, the CLI and the enqueueing route import it; views, cancel and retry do not",
  "lib/query/corpus-upload": "an admin's corpus upload: the import formats' parsers and the store; one route only",
  "lib/query/library-file": "a reader's library upload: the BibTeX and RIS parsers; one route only",
  "lib/query/lineage": "a paper's prior and derivative work: one route only",
  "lib/query/request": "the related-papers routes' handlers (admission, streaming, the HTTP edge); two routes and the CLI",
  "lib/query/warm-up": "instrumentation.ts warms the server up over HTTP (a request and a sample paper); nothing else needs it",
  "lib/security/screen": "the proxy's request screen (rate limits, CSRF, body limits); proxy.ts only",
};

const TEST_HELPER = /(^|\/)(testing|[\w-]+-testing|test-pdfs)(\.tsx?)?$|(^|\/)fixtures\//;
const UNCHECKED = new Set(["scripts", "e2e"]);

const surfaceRule = {
  meta: {
    type: "problem",
    docs: { description: "from outside a lib/ folder, import its index.ts (lint/layers.mjs)" },
    schema: [],
    messages: {
      deep: 'import lib/{{to}} through its public surface "@/lib/{{to}}" (lib/{{to}}/index.ts), not {{spec}}: see lint/layers.mjs (LIGHT_ENTRIES for code that must stay light, SEPARATE_ENTRIES for heavy modules kept off an index)',
      own: "lib/{{folder}} imports its own index ({{spec}}): import the file itself by relative path (an index that imports its importer is a cycle)",
    },
  },
  create(context) {
    const filename = context.physicalFilename ?? context.filename;
    const rel = path.relative(ROOT, filename);
    const parts = rel.split(path.sep);
    if (UNCHECKED.has(parts[0]) || parts[0] === ".." || rel.startsWith(`lib${path.sep}generated${path.sep}`)) return {};
    const from = parts[0] === "lib" && parts.length > 2 ? parts[1] : null;
    const check = (node, spec) => {
      if (typeof spec !== "string") return;
      const target = resolveSpecifier(spec, filename);
      if (target === null) return;
      const t = target.split(path.sep);
      if (t[0] !== "lib" || t.length < 2 || t[1] === "generated") return;
      const to = libFolder(target);
      if (to === null || to === "(root)") return;
      const inner = t
        .slice(2)
        .join("/")
        .replace(/\.(tsx?|mjs|js)$/, "");
      if (to === from) {
        if ((inner === "" || inner === "index") && !isTest(rel)) context.report({ node, messageId: "own", data: { folder: from, spec } });
        return;
      }
      if (inner === "" || inner === "index" || TEST_HELPER.test(inner) || inner.endsWith(".json")) return;
      if (Object.hasOwn(LIGHT_ENTRIES, `lib/${to}/${inner}`) || Object.hasOwn(SEPARATE_ENTRIES, `lib/${to}/${inner}`)) return;
      context.report({ node, messageId: "deep", data: { to, spec } });
    };
    return importVisitors(check);
  },
};

export const layersPlugin = { rules: { "import-direction": layersRule, "public-surface": surfaceRule } };
