import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { FACETS } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { createTestDb, type TestDb } from "@/lib/db/testing";
import type { Embedder } from "@/lib/embed";
import type { Evidence, ItemFlag } from "./checks";
import { loadPaperAudit } from "./read";
import { auditCorpus } from "./run";

/** Bag-of-words vectors: cosine = word overlap, so an item copied from a sentence grounds at 1. */
class WordEmbedder implements Embedder {
  readonly id = "words:4096";
  readonly dim = 4096;
  embedded = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.embedded += texts.length;
    return texts.map((t) => {
      const v = new Float32Array(this.dim);
      for (const w of t.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[createHash("sha256").update(w).digest().readUInt16LE(0) % this.dim] += 1;
      const n = Math.hypot(...v) || 1;
      return v.map((x) => x / n);
    });
  }
}

const ABSTRACT = "Hindi parsing lacks treebanks.  We present\na treebank of news sentences. Parsers gain accuracy on the new treebank.";

describe("auditCorpus", { concurrency: false }, () => {
  let t: TestDb;
  let db: Db;
  let cacheRoot: string;
  let paperA: number;
  let paperB: number;

  before(async () => {
    t = await createTestDb();
    db = t.db;
    cacheRoot = mkdtempSync(path.join(os.tmpdir(), "graft-audit-cache-"));
    const corpus = await db.corpus.create({ data: { name: "c" } });
    const mk = async (externalId: string, title: string, abstract: string, facets: Record<string, string[]>) => {
      const p = await db.paper.create({ data: { corpusId: corpus.id, externalId, title, titleSearch: title, abstract, facetStatus: "imported" } });
      for (const [facet, items] of Object.entries(facets))
        await db.facetItem.createMany({ data: items.map((text, position) => ({ paperId: p.id, facet, position, text })) });
      return p.id;
    };
    paperA = await mk("A", "A Hindi treebank", ABSTRACT, {
      problems: ["Hindi parsing lacks treebanks."],
      methods: ["We present a treebank of news sentences.", "We present a treebank of news sentences."],
      results: ["Parsers gain accuracy on the new treebank."],
      contributions: ["A Hindi treebank"],
    });
    paperB = await mk("B", "Speech tagging for Welsh", "Welsh speech needs taggers. A tagger is trained on speech.", {
      problems: ["Quantum chromodynamics of gluons."],
      methods: ["A tagger is trained on speech."],
      results: ["The paper shows a tagger."],
      contributions: ["Welsh speech taggers."],
    });
  });
  after(async () => {
    await t.cleanup();
    rmSync(cacheRoot, { recursive: true, force: true });
  });

  const audits = async (paperId: number) =>
    (
      await db.facetItem.findMany({
        where: { paperId },
        include: { audit: true },
        orderBy: [{ facet: "asc" }, { position: "asc" }],
      })
    ).map((i) => ({
      facet: i.facet,
      position: i.position,
      text: i.text,
      id: i.audit?.id,
      grounding: i.audit?.grounding,
      evidence: JSON.parse(i.audit?.evidence ?? "[]") as Evidence[],
      flags: JSON.parse(i.audit?.flags ?? "[]") as ItemFlag[],
      specificity: i.audit?.specificity,
    }));

  test("stores grounding with evidence offsets into the abstract, flags and specificity per item; records a job", async () => {
    const embedder = new WordEmbedder();
    const report = await auditCorpus(db, { corpus: "c", embedderInstance: embedder, cacheRoot });
    assert.equal(report.summary.papers, 2);
    assert.equal(report.summary.items, 9);
    assert.ok(report.newlyEmbedded > 0);

    const a = await audits(paperA);
    assert.ok(
      a.every((i) => i.id !== undefined),
      "every item audited",
    );
    const results = a.find((i) => i.facet === "results")!;
    assert.equal(results.grounding, 1);
    const best = results.evidence[0];
    assert.equal(best.source, "abstract");
    assert.equal(ABSTRACT.slice(best.start, best.end), "Parsers gain accuracy on the new treebank.");
    assert.equal(results.evidence.length, 3);
    const method = a.find((i) => i.facet === "methods" && i.position === 0)!;
    assert.equal(ABSTRACT.slice(method.evidence[0].start, method.evidence[0].end), "We present\na treebank of news sentences.");
    assert.equal(method.evidence[0].text, "We present a treebank of news sentences.");
    assert.deepEqual(method.flags, ["meta", "facet-meta", "near-duplicate"], "both methods are meta, so the facet is");
    assert.deepEqual(a.find((i) => i.facet === "methods" && i.position === 1)!.flags, ["duplicate", "meta", "facet-meta", "near-duplicate"]);
    assert.equal(a.find((i) => i.facet === "contributions")!.evidence[0].source, "title");

    const b = await audits(paperB);
    const offTopic = b.find((i) => i.facet === "problems")!;
    assert.equal(offTopic.grounding, 0);
    assert.ok(offTopic.flags.includes("ungrounded"));
    assert.ok(b.find((i) => i.facet === "results")!.flags.includes("meta"));

    const job = await db.job.findUniqueOrThrow({ where: { id: report.job } });
    assert.equal(job.stage, "audit");
    assert.equal(job.status, "succeeded");
    assert.equal(JSON.parse(job.result ?? "{}").summary.items, 9);
    assert.equal(report.summary.structural.exactDuplicates, 1);
    assert.equal(report.summary.redundancy.papersWithNearDuplicate, 1);
  });

  test("a re-run embeds nothing new and replaces each item's row", async () => {
    const before = (await audits(paperA)).map((i) => i.id);
    const embedder = new WordEmbedder();
    const report = await auditCorpus(db, { corpus: "c", embedderInstance: embedder, cacheRoot });
    assert.equal(report.newlyEmbedded, 0);
    assert.equal(embedder.embedded, 0);
    const after = (await audits(paperA)).map((i) => i.id);
    assert.equal(await db.itemAudit.count(), 9, "one row per item, not two");
    assert.ok(
      after.every((id, k) => id !== before[k]),
      "rows were replaced",
    );
  });

  test("a failing write batch leaves that batch's previous audits intact; earlier batches are replaced", async () => {
    const old = await audits(paperB);
    // A real failure inside the second batch's transaction (one paper per batch, B second):
    // a trigger rejects the insert of B's first audit row, after its old rows were deleted.
    const firstOfB = (await db.facetItem.findFirstOrThrow({ where: { paperId: paperB }, orderBy: { id: "asc" } })).id;
    const pg = t.config.provider === "postgresql";
    if (pg) {
      await db.$executeRawUnsafe(
        `CREATE FUNCTION audit_fail() RETURNS trigger AS $$ BEGIN IF NEW."facetItemId" = ${firstOfB} THEN RAISE EXCEPTION 'disk full'; END IF; RETURN NEW; END $$ LANGUAGE plpgsql`,
      );
      await db.$executeRawUnsafe(`CREATE TRIGGER audit_fail BEFORE INSERT ON "ItemAudit" FOR EACH ROW EXECUTE FUNCTION audit_fail()`);
    } else {
      await db.$executeRawUnsafe(
        `CREATE TRIGGER audit_fail BEFORE INSERT ON "ItemAudit" WHEN NEW."facetItemId" = ${firstOfB} BEGIN SELECT RAISE(ABORT, 'disk full'); END`,
      );
    }
    try {
      await assert.rejects(
        auditCorpus(db, { corpus: "c", embedderInstance: new WordEmbedder(), cacheRoot, batchSize: 1, thresholds: { genericBelow: 2 } }),
        /disk full/,
      );
    } finally {
      await db.$executeRawUnsafe(pg ? `DROP TRIGGER audit_fail ON "ItemAudit"` : `DROP TRIGGER audit_fail`);
      if (pg) await db.$executeRawUnsafe(`DROP FUNCTION audit_fail()`);
    }
    const a = await audits(paperA);
    assert.ok(
      a.every((i) => i.flags.includes("generic")),
      "first batch written with the new thresholds",
    );
    const b = await audits(paperB);
    assert.deepEqual(b, old, "second batch untouched");
    const job = await db.job.findFirstOrThrow({ where: { stage: "audit" }, orderBy: { id: "desc" } });
    assert.equal(job.status, "failed");
    assert.match(job.error ?? "", /disk full/);
  });

  test("loadPaperAudit: items by facet with evidence, facet flags and audit time; null for an unknown paper", async () => {
    await auditCorpus(db, { corpus: "c", embedderInstance: new WordEmbedder(), cacheRoot });
    const view = await loadPaperAudit(db, paperA);
    assert.ok(view);
    assert.equal(view.abstract, ABSTRACT);
    assert.deepEqual(
      FACETS.map((f) => view.facets[f].length),
      [1, 2, 1, 1],
    );
    assert.equal(view.facets.results[0].grounding, 1);
    assert.equal(view.audited, 5);
    assert.match(view.auditedAt ?? "", /^\d{4}-\d\d-\d\dT/);
    assert.deepEqual(view.facetFlags.methods, ["meta-facet"]);
    assert.deepEqual(view.facetFlags.results, []);
    assert.equal(await loadPaperAudit(db, 999_999), null);
    await assert.rejects(auditCorpus(db, { corpus: "nope", embedderInstance: new WordEmbedder(), cacheRoot }), /no corpus named "nope"/);
  });
});
