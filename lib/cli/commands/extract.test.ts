import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { Command } from "commander";
import { disconnectDb } from "@/lib/db";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import { resolveProvider } from "@/lib/facets/provider";
import { UsageError } from "../output";
import { registerAudit } from "./audit";
import { registerExtract } from "./extract";

/** Runs `graft <args>` in-process against the test store; returns what it printed on stdout. */
async function graft(...args: string[]): Promise<string> {
  const out: string[] = [];
  const write = process.stdout.write.bind(process.stdout);
  // Only strings are ours: the test runner talks to its parent over stdout in binary chunks.
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    if (typeof chunk !== "string") return write(chunk, ...rest);
    out.push(chunk);
    return true;
  }) as typeof process.stdout.write;
  try {
    const program = new Command("graft").exitOverride();
    registerExtract(program);
    registerAudit(program);
    await program.parseAsync(args, { from: "user" });
  } finally {
    process.stdout.write = write;
  }
  return out.join("");
}

test("provider setting: flag, then GRAFT_EXTRACTOR, then offline; bad values name their source", () => {
  assert.equal(resolveProvider(undefined, {}), "offline");
  assert.equal(resolveProvider(undefined, { GRAFT_EXTRACTOR: "llm" }), "llm");
  assert.equal(resolveProvider("offline", { GRAFT_EXTRACTOR: "llm" }), "offline");
  assert.equal(resolveProvider(" ", { GRAFT_EXTRACTOR: " " }), "offline");
  assert.throws(() => resolveProvider("gpt", {}), /--provider: unknown extractor "gpt": expected offline or llm/);
  assert.throws(() => resolveProvider(undefined, { GRAFT_EXTRACTOR: "LLM!" }), /GRAFT_EXTRACTOR="LLM!": expected offline or llm/);
});

describe("graft extract / graft audit", { concurrency: false }, () => {
  let t: TestDb;
  let dataRoot: string;
  const saved = {
    url: process.env.DATABASE_URL,
    root: process.env.GRAFT_DATA_ROOT,
    extractor: process.env.GRAFT_EXTRACTOR,
    model: process.env.GRAFT_LLM_MODEL,
  };

  before(async () => {
    t = await createTestDb();
    dataRoot = mkdtempSync(path.join(os.tmpdir(), "graft-extract-cli-"));
    process.env.DATABASE_URL = t.config.url;
    process.env.GRAFT_DATA_ROOT = dataRoot;
    delete process.env.GRAFT_EXTRACTOR;
    delete process.env.GRAFT_LLM_MODEL;
    const corpus = await t.db.corpus.create({ data: { name: "tiny" } });
    const papers = [
      [
        "P1",
        "Neural machine translation for Hindi",
        "Translation into Hindi lacks parallel data. We propose back-translation with a transformer. BLEU improves by 3.1 points on the WMT14 test set.",
      ],
      [
        "P2",
        "A treebank of Welsh speech",
        "Parsing spoken Welsh is hard. We annotate 5,000 utterances with dependency trees. A parser trained on them reaches 82% LAS.",
      ],
    ];
    for (const [externalId, title, abstract] of papers) {
      await t.db.paper.create({ data: { corpusId: corpus.id, externalId, title, titleSearch: title.toLowerCase(), abstract } });
    }
  });
  after(async () => {
    await disconnectDb();
    await t.cleanup();
    rmSync(dataRoot, { recursive: true, force: true });
    for (const [k, v] of [
      ["DATABASE_URL", saved.url],
      ["GRAFT_DATA_ROOT", saved.root],
      ["GRAFT_EXTRACTOR", saved.extractor],
      ["GRAFT_LLM_MODEL", saved.model],
    ] as const) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
    process.exitCode = undefined;
  });

  test("extract: dry run, then the offline default extracts every paper; a re-run finds nothing to do", async () => {
    const dry = JSON.parse(await graft("extract", "--corpus", "tiny", "--dry-run", "--json"));
    assert.deepEqual([dry.provider, dry.selected, dry.done], ["offline", 2, 0]);
    assert.equal(await t.db.facetItem.count(), 0);

    const human = await graft("extract", "--corpus", "tiny");
    assert.match(human, /extract offline on tiny: 2 of 2 papers selected/);
    assert.match(human, /2 extracted \(\d+ items\), 0 invalid, 0 errors/);
    assert.match(human, /rebuild the graph with `graft build --stage graph --corpus tiny`/);
    assert.equal(await t.db.paper.count({ where: { facetStatus: "extracted" } }), 2);
    const runs = await t.db.extraction.findMany();
    assert.deepEqual(
      runs.map((r) => [r.provider, r.status]),
      [
        ["offline", "ok"],
        ["offline", "ok"],
      ],
    );
    assert.match(runs[0].model, /^offline:/);

    const again = JSON.parse(await graft("extract", "--corpus", "tiny", "--json"));
    assert.equal(again.selected, 0);
    assert.equal(again.skipped.hasFacets, 2);
  });

  test("extract: bad settings are usage errors naming the setting", async () => {
    await assert.rejects(graft("extract", "--corpus", "tiny", "--provider", "gpt"), (e: Error) => e instanceof UsageError && /--provider/.test(e.message));
    process.env.GRAFT_EXTRACTOR = "llm";
    try {
      await assert.rejects(graft("extract", "--corpus", "tiny"), (e: Error) => e instanceof UsageError && /GRAFT_LLM_MODEL is not set/.test(e.message));
    } finally {
      delete process.env.GRAFT_EXTRACTOR;
    }
    await assert.rejects(graft("extract", "--corpus", "tiny", "--concurrency", "0"), /--concurrency/);
    await assert.rejects(graft("extract", "--corpus", "nope"), /no corpus named "nope"/);
  });

  test("audit: prints the statistics, stores one audit per item and writes the report", async () => {
    const report = path.join(dataRoot, "audit-tiny.md");
    const text = await graft("audit", "--corpus", "tiny", "--workers", "1", "--report", report);
    assert.match(text, /audit of tiny: 2 papers, \d+ items \(embedder use-lite@/);
    assert.match(text, /items over 500 characters\s+0/);
    assert.match(text, /problems\s+[01]\.\d{3}\s+[01]\.\d{3}/);
    assert.equal(await t.db.itemAudit.count(), await t.db.facetItem.count());
    const md = readFileSync(report, "utf8");
    assert.match(md, /^# Facet audit: tiny/);
    assert.match(md, /Command: `graft audit --corpus tiny --report /);
    assert.match(md, /\| paper \(MiniLM, full-text paragraphs\) \| 0\.718 \|/);
    const json = JSON.parse(await graft("audit", "--corpus", "tiny", "--workers", "1", "--json"));
    assert.equal(json.newlyEmbedded, 0, "the second audit reads every vector from the cache");
    assert.equal(json.summary.papers, 2);
  });
});
