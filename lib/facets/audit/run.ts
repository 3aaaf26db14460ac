/**
 * `graft audit`: audits every facet item of a corpus and stores the results per item
 * (ItemAudit), with the corpus summary on a Job row (stage "audit").
 *
 * Embeddings go through the corpus's vector cache, so facet items embedded by a graph build
 * and passages embedded by an earlier audit are not embedded again. All checks run before
 * anything is written; writes replace each paper's audit rows in batches of papers, one
 * transaction per batch, so a failure leaves every paper with either its previous audit or
 * its new one, never a mix.
 */
import os from "node:os";
import { FACETS, type Facet } from "@/lib/corpus";
import { bulkInsert, type Db, dbProvider } from "@/lib/db";
import { dataRoot } from "@/lib/paths";
import { cacheDirFor, embedWithCache, createEmbedder, embedderSpecFromEnv, dot, type Embedder } from "@/lib/embed";
import { ParallelEmbedder } from "@/lib/embed/parallel";
import { mulberry32 } from "@/lib/random";
import { type Passage, paperPassages } from "./checks";
import { auditPaper, type AuditThresholds, DEFAULT_THRESHOLDS, type PaperAuditResult } from "./paper";
import { quantileLinear } from "@/lib/quantile";
import { AuditStats, type AuditSummary } from "./summary";

export type AuditPhase = "embed" | "check" | "store";

export interface AuditCorpusOptions {
  corpus: string;
  /** Embedder spec (default GRAFT_EMBEDDER or use-lite), embedded by `workers` processes. */
  embedder?: string;
  workers?: number;
  /** An embedder instance to use in-process instead (tests). */
  embedderInstance?: Embedder;
  /** Where the vector cache lives (default the data root). */
  cacheRoot?: string;
  /** corpus | query | all papers (default all). */
  role?: "corpus" | "query" | "all";
  /**
   * Items whose grounding is below this quantile of the null distribution (each item against
   * a random other paper of the corpus) are flagged "ungrounded" (default 0.5: an item no
   * closer to its own paper than to a typical unrelated one). null: no such flag.
   */
  ungroundedQuantile?: number | null;
  thresholds?: Partial<Omit<AuditThresholds, "ungroundedBelow">>;
  /** Papers per write transaction (default 200). */
  batchSize?: number;
  /** Seed of the null sample. */
  seed?: number;
  onProgress?: (phase: AuditPhase, done: number, total: number) => void;
}

export interface AuditCorpusReport {
  summary: AuditSummary;
  job: number;
  /** Texts embedded by this run (the rest came from the cache). */
  newlyEmbedded: number;
  texts: number;
  seconds: { embed: number; check: number; store: number; total: number };
}

interface PaperWork {
  id: number;
  passages: Passage[];
  /** Index of each passage's text in the embedded list. */
  passageRows: number[];
  abstractRow: number | null;
  items: { id: number; facet: Facet; position: number; text: string; row: number }[];
}

type AuditedPaper = { work: PaperWork; result: PaperAuditResult };
type PaperText = { title: string; abstract: string; fullText: string | null };

export async function auditCorpus(db: Db, options: AuditCorpusOptions): Promise<AuditCorpusReport> {
  const t0 = performance.now();
  const progress = options.onProgress ?? (() => {});
  const role = options.role ?? "all";
  const { corpus, items, papers } = await loadAuditInput(db, options.corpus, role);
  const { texts, work } = auditWork(items, papers);

  const tEmbed = performance.now();
  const { vectors, embedderId, newlyEmbedded } = await embedAll(texts, options, (d, t) => progress("embed", d, t));
  const embedSeconds = (performance.now() - tEmbed) / 1000;

  // ── checks ──
  const tCheck = performance.now();
  const nulls = nullScores(work, vectors, options.seed ?? 20_241_122);
  const q = options.ungroundedQuantile === undefined ? 0.5 : options.ungroundedQuantile;
  const allNull = nulls.flat().sort((a, b) => a - b);
  const threshold = q === null || allNull.length === 0 ? null : Math.round(quantileLinear(allNull, q) * 10_000) / 10_000;
  const thresholds: AuditThresholds = { ...DEFAULT_THRESHOLDS, ...options.thresholds, ungroundedBelow: threshold };
  const { stats, results } = auditPapers(work, vectors, nulls, thresholds, progress);
  const summary = stats.finish({ corpus: corpus.name, embedder: embedderId, thresholds });
  const checkSeconds = (performance.now() - tCheck) / 1000;

  // ── store ──
  const tStore = performance.now();
  const job = await db.job.create({
    data: {
      corpusId: corpus.id,
      stage: "audit",
      status: "running",
      params: JSON.stringify({ role, embedder: embedderId, thresholds, ungroundedQuantile: q }),
      total: results.length,
      startedAt: new Date(),
    },
  });
  try {
    await storeAudits(db, results, options.batchSize ?? 200, progress);
    const storeSeconds = (performance.now() - tStore) / 1000;
    const seconds = { embed: embedSeconds, check: checkSeconds, store: storeSeconds, total: (performance.now() - t0) / 1000 };
    await db.job.update({
      where: { id: job.id },
      data: {
        status: "succeeded",
        progress: 1,
        done: results.length,
        result: JSON.stringify({ summary, newlyEmbedded, texts: texts.length, seconds }),
        finishedAt: new Date(),
      },
    });
    return { summary, job: job.id, newlyEmbedded, texts: texts.length, seconds };
  } catch (err) {
    await db.job
      .update({ where: { id: job.id }, data: { status: "failed", error: err instanceof Error ? err.message : String(err), finishedAt: new Date() } })
      .catch(() => {});
    throw err;
  }
}

/** The corpus, its facet items (of papers in `role`) and the texts of the papers that have any. */
async function loadAuditInput(db: Db, corpusName: string, role: NonNullable<AuditCorpusOptions["role"]>) {
  const corpus = await db.corpus.findUnique({ where: { name: corpusName } });
  if (!corpus) throw new Error(`no corpus named "${corpusName}" (import it first)`);
  const paperWhere = { corpusId: corpus.id, ...(role === "all" ? {} : { role }) };

  const items = await db.facetItem.findMany({
    where: { paper: paperWhere },
    select: { id: true, paperId: true, facet: true, position: true, text: true },
    orderBy: [{ paperId: "asc" }, { facet: "asc" }, { position: "asc" }],
  });
  if (items.length === 0) throw new Error(`no paper of "${corpusName}" has facets yet: run \`graft extract\` first`);
  const paperIds = [...new Set(items.map((i) => i.paperId))];
  const papers = new Map<number, PaperText>();
  for (let i = 0; i < paperIds.length; i += 500) {
    for (const p of await db.paper.findMany({
      where: { id: { in: paperIds.slice(i, i + 500) } },
      select: { id: true, title: true, abstract: true, fullText: true },
    }))
      papers.set(p.id, p);
  }
  return { corpus, items, papers };
}

/** Texts to embed: items, passages, whole abstracts (each once), and per paper its rows among them; papers in first-item order. */
function auditWork(
  items: { id: number; paperId: number; facet: string; position: number; text: string }[],
  papers: ReadonlyMap<number, PaperText>,
): { texts: string[]; work: PaperWork[] } {
  const texts: string[] = [];
  const rowOf = new Map<string, number>();
  const row = (text: string) => {
    let r = rowOf.get(text);
    if (r === undefined) {
      r = texts.length;
      texts.push(text);
      rowOf.set(text, r);
    }
    return r;
  };
  const work: PaperWork[] = [];
  const byPaper = new Map<number, PaperWork>();
  for (const id of new Set(items.map((i) => i.paperId))) {
    const p = papers.get(id)!;
    const passages = paperPassages(p);
    const abstract = p.abstract.trim().replace(/\s+/g, " ");
    const w: PaperWork = { id, passages, passageRows: passages.map((x) => row(x.text)), abstractRow: abstract ? row(abstract) : null, items: [] };
    work.push(w);
    byPaper.set(id, w);
  }
  for (const i of items) {
    if (!(FACETS as readonly string[]).includes(i.facet)) continue;
    byPaper.get(i.paperId)!.items.push({ id: i.id, facet: i.facet as Facet, position: i.position, text: i.text, row: row(i.text) });
  }
  return { texts, work };
}

/** Per paper, each item's best score against the passages of another paper drawn at random: the null the ungrounded threshold comes from. */
function nullScores(work: PaperWork[], vectors: Float32Array[], seed: number): number[][] {
  const rand = mulberry32(seed);
  const withPassages = work.filter((w) => w.passages.length > 0);
  const nullOf = (w: PaperWork): number[] => {
    if (withPassages.length < 2) return [];
    let other: PaperWork;
    do other = withPassages[Math.floor(rand() * withPassages.length)];
    while (other.id === w.id);
    return w.items.map((it) => Math.max(...other.passageRows.map((r) => dot(vectors[it.row], vectors[r]))));
  };
  return work.map(nullOf);
}

function auditPapers(
  work: PaperWork[],
  vectors: Float32Array[],
  nulls: number[][],
  thresholds: AuditThresholds,
  progress: NonNullable<AuditCorpusOptions["onProgress"]>,
): { stats: AuditStats; results: AuditedPaper[] } {
  const stats = new AuditStats();
  const results: AuditedPaper[] = [];
  work.forEach((w, k) => {
    const facets = Object.fromEntries(FACETS.map((f) => [f, [] as { text: string; vector: Float32Array }[]])) as Record<
      Facet,
      { text: string; vector: Float32Array }[]
    >;
    // Positions can have gaps after edits; the audit indexes items by their order in the facet.
    for (const it of w.items) facets[it.facet].push({ text: it.text, vector: vectors[it.row] });
    const result = auditPaper({ facets, passages: w.passages, passageVectors: w.passageRows.map((r) => vectors[r]) }, thresholds);
    const abstractScores =
      w.abstractRow === null ? undefined : orderedItems(w).map((it) => Math.round(dot(vectors[it.row], vectors[w.abstractRow!]) * 10_000) / 10_000);
    stats.add(result, { nullScores: nulls[k], abstractScores });
    results.push({ work: w, result });
    if (k % 200 === 0) progress("check", k, work.length);
  });
  progress("check", work.length, work.length);
  return { stats, results };
}

/** The item audits into the store, `batch` papers per transaction, replacing earlier ones. */
async function storeAudits(db: Db, results: AuditedPaper[], batch: number, progress: NonNullable<AuditCorpusOptions["onProgress"]>): Promise<void> {
  const provider = dbProvider(db);
  for (let s = 0; s < results.length; s += batch) {
    const part = results.slice(s, s + batch);
    await db.$transaction(
      async (tx) => {
        const ids = part.flatMap((r) => r.work.items.map((i) => i.id));
        // Items replaced since they were read (a re-extraction) are skipped: their new rows get audited next time.
        const current = new Map((await tx.facetItem.findMany({ where: { id: { in: ids } }, select: { id: true, text: true } })).map((i) => [i.id, i.text]));
        await tx.itemAudit.deleteMany({ where: { facetItemId: { in: ids } } });
        const rows: (string | number | null)[][] = [];
        for (const { work: w, result } of part) {
          orderedItems(w).forEach((it, k) => {
            if (current.get(it.id) !== it.text) return;
            const r = result.items[k];
            rows.push([it.id, r.grounding, JSON.stringify(r.evidence), JSON.stringify(r.flags), r.specificity]);
          });
        }
        await bulkInsert(tx, provider, "ItemAudit", ["facetItemId", "grounding", "evidence", "flags", "specificity"], rows);
      },
      { timeout: 5 * 60_000, maxWait: 60_000 },
    );
    progress("store", Math.min(results.length, s + batch), results.length);
  }
}

/** A paper's items in the order auditPaper returns them: facet order, then position. */
function orderedItems(w: PaperWork) {
  return FACETS.flatMap((f) => w.items.filter((i) => i.facet === f));
}

async function embedAll(
  texts: string[],
  options: AuditCorpusOptions,
  onProgress: (done: number, total: number) => void,
): Promise<{ vectors: Float32Array[]; embedderId: string; newlyEmbedded: number }> {
  const root = options.cacheRoot ?? dataRoot();
  let newlyEmbedded = 0;
  if (options.embedderInstance) {
    const e = options.embedderInstance;
    const counting: Embedder = {
      id: e.id,
      dim: e.dim,
      embed: (batch) => {
        newlyEmbedded += batch.length;
        return e.embed(batch);
      },
    };
    const vectors = await embedWithCache(counting, texts, { dir: cacheDirFor(options.corpus, e.id, root), onProgress });
    return { vectors, embedderId: e.id, newlyEmbedded };
  }
  // Learn the embedder's id and dim in-process (a fraction of a second), then start the worker
  // pool only if the cache misses something: a fully cached audit starts no worker at all.
  const spec = options.embedder ?? embedderSpecFromEnv();
  const probe = await createEmbedder(spec);
  const { id, dim } = probe;
  await probe.close?.();
  let pool: ParallelEmbedder | null = null;
  const lazy: Embedder = {
    id,
    dim,
    embed: async (batch) => {
      newlyEmbedded += batch.length;
      pool ??= await ParallelEmbedder.create(spec, { workers: options.workers ?? Math.min(2, os.availableParallelism()) });
      return pool.embed(batch);
    },
  };
  try {
    const vectors = await embedWithCache(lazy, texts, { dir: cacheDirFor(options.corpus, id, root), onProgress });
    return { vectors, embedderId: id, newlyEmbedded };
  } finally {
    await (pool as ParallelEmbedder | null)?.close?.();
  }
}
