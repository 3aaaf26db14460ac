/**
 * `graft extract`: runs a facet extractor over a corpus's papers and stores the results.
 *
 * Which papers (planExtraction, a pure function):
 *   - papers without facets (facetStatus "none") always;
 *   - failed papers whose last attempt got no answer (kind "error": transport, HTTP, config),
 *     since a later run may reach the server; papers whose answer failed validation stay
 *     unprocessed (the paper does not retry them) unless `retryInvalid`;
 *   - papers that already have facets only with `force`, and then only facets the provider may
 *     supersede (offline < llm): offline replaces offline facets, llm replaces offline and llm
 *     ones. Imported facets (in the demo corpus they are the LLM's) and, for the offline
 *     provider, LLM facets are kept and counted unless `overwrite` says to replace them too;
 *   - never a paper whose items are in an annotation study (replacing them would delete the
 *     ratings through the cascade).
 *
 * Writing: results are buffered and written in batches, one transaction per batch; a paper's
 * items are replaced only by a successful extraction. A failed re-extraction of a paper that
 * has facets keeps them (only the attempt is recorded). Every attempt, failed or not, gets an
 * `Extraction` row with its token usage. A paper whose state changed since planning (another
 * run, an import) is left alone. Resuming is re-running: finished papers are no longer selected.
 */
import { FACETS, type Facet, parseAuthors } from "@/lib/corpus";
import { bulkInsert, type Db, dbProvider } from "@/lib/db";
import type { ExtractionResult, FacetExtractor, PaperInput, TokenUsage } from "./extractor";
import { extractAll, type ExtractProgress } from "./llm/run";
import { OfflineFacetExtractor } from "./offline/extractor";
import { DEFAULT_THREADS, OfflineExtractorPool } from "./offline/pool";

export type PaperRole = "corpus" | "query" | "all";

/** Where a paper's current facets came from. */
export type FacetOrigin = "none" | "offline" | "llm" | "import" | "mixed";

/** What the planner needs to know about one paper. */
export interface PaperState {
  id: number;
  facetStatus: string;
  /** Origin of its stored items ("none" when it has none). */
  origin: FacetOrigin;
  /** Kind of its latest failed attempt (null when none is recorded). */
  lastFailure: "invalid" | "error" | null;
  inStudy: boolean;
}

export interface PlanOptions {
  /** The extractor's id: "offline" or "llm" (others rank with offline). */
  provider: string;
  force?: boolean;
  overwrite?: boolean;
  retryInvalid?: boolean;
}

export interface SkipCounts {
  /** Have facets; pass force to re-extract. */
  hasFacets: number;
  /** Have facets this provider must not replace without overwrite (imported, or LLM for offline). */
  protected: number;
  /** Last answer failed validation; pass retryInvalid. */
  invalid: number;
  /** Items in an annotation study. */
  inStudy: number;
}

export interface Plan {
  selected: number[];
  skipped: SkipCounts;
}

const RANK: Record<string, number> = { offline: 0, llm: 1 };

/** True when facets of `origin` may be replaced by `provider` under `force` (without overwrite). */
export function supersedes(provider: string, origin: FacetOrigin): boolean {
  if (origin === "none") return true;
  if (origin === "import" || origin === "mixed") return false;
  return (RANK[provider] ?? 0) >= (RANK[origin] ?? 0);
}

/** Chooses the papers to extract (ids in input order) and counts the rest by reason. */
export function planExtraction(papers: readonly PaperState[], opts: PlanOptions): Plan {
  const skipped: SkipCounts = { hasFacets: 0, protected: 0, invalid: 0, inStudy: 0 };
  const selected: number[] = [];
  for (const p of papers) {
    if (p.inStudy) {
      skipped.inStudy++;
      continue;
    }
    const hasFacets = p.origin !== "none";
    if (!hasFacets) {
      // "failed" with no items, or "none"; any other status without items is treated as none.
      if (p.facetStatus === "failed" && p.lastFailure === "invalid" && !opts.retryInvalid) skipped.invalid++;
      else selected.push(p.id);
      continue;
    }
    if (!opts.force && !opts.overwrite) skipped.hasFacets++;
    else if (opts.overwrite || supersedes(opts.provider, p.origin)) selected.push(p.id);
    else skipped.protected++;
  }
  return { selected, skipped };
}

export interface ExtractCorpusOptions {
  corpus: string;
  extractor: FacetExtractor;
  concurrency: number;
  force?: boolean;
  overwrite?: boolean;
  retryInvalid?: boolean;
  role?: PaperRole;
  /** At most this many papers (the first selected, in id order): for trying a provider on a few. */
  limit?: number;
  /** Results per write transaction (default 1000). */
  batchSize?: number;
  /** A buffered result waits at most this long for its batch to fill before it is written (default 1000 ms). */
  maxDelayMs?: number;
  /**
   * Stop the run after this many consecutive "error" results (default 10): a wrong key or a
   * server that is down fails every paper the same way, and marking a whole corpus failed
   * helps nobody. 0 disables it.
   */
  maxConsecutiveErrors?: number;
  /**
   * Worker threads for the offline extractor, so its CPU work runs on another core than the
   * store's reads and writes (results identical to in-process). Default: 2 when at least
   * MIN_PAPERS_FOR_THREADS papers are selected, else 0 (in-process). Other extractors ignore it.
   */
  threads?: number;
  /** Plan only: count what would run, extract nothing. */
  dryRun?: boolean;
  signal?: AbortSignal;
  onProgress?: (p: ExtractProgress) => void;
}

export interface ExtractCorpusSummary {
  corpus: string;
  provider: string;
  /** Papers of the role(s) considered. */
  considered: number;
  selected: number;
  skipped: SkipCounts;
  /** Extractions that ran to a result (ok + invalid + error). */
  done: number;
  ok: number;
  invalid: number;
  error: number;
  /** Failed re-extractions of papers that had facets, which kept them. */
  keptPrevious: number;
  /** Results not written because the paper changed while the run was going (another run, an import). */
  changedMeanwhile: number;
  itemsWritten: number;
  usage: TokenUsage;
  /** Distinct model names reported. */
  models: string[];
  /** First few failure reasons, for the summary. */
  failures: { externalId: string; kind: "invalid" | "error"; reason: string }[];
  aborted: boolean;
  /** Set when the run stopped itself (consecutive errors), with why. */
  stopped: string | null;
  dryRun: boolean;
  seconds: number;
}

const MAX_LISTED_FAILURES = 10;

/** Below this many papers the offline extractor stays in-process: starting threads would cost more than it saves. */
export const MIN_PAPERS_FOR_THREADS = 5000;

interface Candidate extends PaperInput {
  id: number;
  externalId: string;
  /** State at planning time, re-checked before writing. */
  facetStatus: string;
  hadFacets: boolean;
}

/** Reads every paper's state for the planner. */
async function paperStates(db: Db, corpusId: number, role: PaperRole) {
  const where = { corpusId, ...(role === "all" ? {} : { role }) };
  const papers = await db.paper.findMany({ where, select: { id: true, facetStatus: true }, orderBy: { id: "asc" } });
  const origins = new Map<number, FacetOrigin>();
  for (const g of await db.facetItem.groupBy({ by: ["paperId", "source"], where: { paper: where } })) {
    const prev = origins.get(g.paperId);
    const src = (g.source === "offline" || g.source === "llm" ? g.source : "import") as FacetOrigin;
    origins.set(g.paperId, prev === undefined || prev === src ? src : "mixed");
  }
  const lastFailure = new Map<number, "invalid" | "error">();
  const failedIds = papers.filter((p) => p.facetStatus === "failed").map((p) => p.id);
  for (let i = 0; i < failedIds.length; i += 500) {
    const rows = await db.extraction.findMany({
      where: { paperId: { in: failedIds.slice(i, i + 500) } },
      select: { paperId: true, status: true },
      orderBy: { id: "desc" },
    });
    for (const r of rows) {
      if (lastFailure.has(r.paperId)) continue;
      // The newest attempt decides; "ok" cannot be newest for a failed paper unless its items
      // were deleted since, and then it is simply unprocessed again.
      lastFailure.set(r.paperId, r.status === "invalid" ? "invalid" : "error");
    }
  }
  const inStudy = new Set((await db.studyItem.findMany({ where: { paper: where }, select: { paperId: true }, distinct: ["paperId"] })).map((s) => s.paperId));
  return papers.map((p): PaperState => ({
    id: p.id,
    facetStatus: p.facetStatus,
    origin: origins.get(p.id) ?? "none",
    lastFailure: lastFailure.get(p.id) ?? null,
    inStudy: inStudy.has(p.id),
  }));
}

/** The summary before any paper is extracted: what the plan considered, selected and skipped. */
function startingSummary(
  corpus: string,
  provider: string,
  considered: number,
  selected: number,
  skipped: ExtractCorpusSummary["skipped"],
  dryRun: boolean,
): ExtractCorpusSummary {
  return {
    corpus,
    provider,
    considered,
    selected,
    skipped,
    done: 0,
    ok: 0,
    invalid: 0,
    error: 0,
    keptPrevious: 0,
    changedMeanwhile: 0,
    itemsWritten: 0,
    usage: { promptTokens: 0, completionTokens: 0 },
    models: [],
    failures: [],
    aborted: false,
    stopped: null,
    dryRun,
    seconds: 0,
  };
}

/** The chosen papers' texts, with their state at planning time. */
async function loadCandidates(db: Db, chosen: number[], stateOf: ReadonlyMap<number, PaperState>): Promise<Candidate[]> {
  // In chunks (an `in` list per chunk keeps each query under the bind-parameter limits).
  const candidates: Candidate[] = [];
  for (let i = 0; i < chosen.length; i += 500) {
    const rows = await db.paper.findMany({
      where: { id: { in: chosen.slice(i, i + 500) } },
      select: { id: true, externalId: true, title: true, abstract: true, fullText: true, authors: true, facetStatus: true },
      orderBy: { id: "asc" },
    });
    for (const r of rows) {
      candidates.push({
        id: r.id,
        externalId: r.externalId,
        title: r.title,
        abstract: r.abstract,
        body: r.fullText,
        authors: parseAuthors(r.authors),
        facetStatus: r.facetStatus,
        hadFacets: (stateOf.get(r.id)?.origin ?? "none") !== "none",
      });
    }
  }
  return candidates;
}

export async function extractCorpus(db: Db, options: ExtractCorpusOptions): Promise<ExtractCorpusSummary> {
  const started = performance.now();
  const { extractor } = options;
  const role = options.role ?? "all";
  const corpus = await db.corpus.findUnique({ where: { name: options.corpus } });
  if (!corpus) throw new Error(`no corpus named "${options.corpus}" (import it first)`);

  const states = await paperStates(db, corpus.id, role);
  const plan = planExtraction(states, {
    provider: extractor.id,
    force: options.force,
    overwrite: options.overwrite,
    retryInvalid: options.retryInvalid,
  });
  const chosen = options.limit !== undefined ? plan.selected.slice(0, options.limit) : plan.selected;
  const stateOf = new Map(states.map((s) => [s.id, s]));

  const summary = startingSummary(corpus.name, extractor.id, states.length, chosen.length, plan.skipped, options.dryRun === true);
  if (options.dryRun || chosen.length === 0) {
    summary.seconds = (performance.now() - started) / 1000;
    return summary;
  }

  const candidates = await loadCandidates(db, chosen, stateOf);

  const threads = options.threads ?? (chosen.length >= MIN_PAPERS_FOR_THREADS ? DEFAULT_THREADS : 0);
  const pool = extractor instanceof OfflineFacetExtractor && threads > 0 ? await OfflineExtractorPool.create(extractor.model, { threads }) : null;
  const batchSize = options.batchSize ?? 1000;
  const writer = new ResultWriter(db, extractor.id, summary, batchSize, options.maxDelayMs ?? 1000);
  const models = new Set<string>();
  const breaker = new AbortController();
  const maxErrors = options.maxConsecutiveErrors ?? 10;
  let streak = 0;
  // The offline extractor never waits on I/O, so without a pause the run would hold the event
  // loop to the end and a Ctrl-C (a signal handler is a macrotask) could not stop it.
  let lastYield = performance.now();
  const signal = options.signal ? AbortSignal.any([options.signal, breaker.signal]) : breaker.signal;
  let run;
  try {
    run = await extractAll(candidates, pool ?? extractor, {
      // A batch's write holds back every result after it: with a batch more in flight, the
      // threads go on extracting while the store is written.
      concurrency: pool ? Math.max(options.concurrency, pool.capacity + batchSize) : options.concurrency,
      signal,
      onProgress: options.onProgress,
      onResult: async (paper, result) => {
        models.add(result.model);
        streak = !result.ok && result.kind === "error" ? streak + 1 : 0;
        if (maxErrors > 0 && streak >= maxErrors && !breaker.signal.aborted) {
          summary.stopped = `stopped after ${streak} consecutive errors; the last: ${result.ok ? "" : result.reason}`;
          breaker.abort(new Error(summary.stopped));
        }
        if (!result.ok && summary.failures.length < MAX_LISTED_FAILURES) {
          summary.failures.push({ externalId: paper.externalId, kind: result.kind, reason: result.reason });
        }
        await writer.add(paper, result);
        if (performance.now() - lastYield > 50) {
          await new Promise((resolve) => setImmediate(resolve));
          lastYield = performance.now();
        }
      },
    });
  } catch (err) {
    // Keep whatever arrived before the failure, but report the failure itself.
    await writer.flush().catch(() => {});
    throw err;
  } finally {
    await pool?.close();
  }
  // Whatever arrived before an abort is kept too.
  await writer.flush();
  summary.done = run.done;
  summary.ok = run.ok;
  summary.invalid = run.invalid;
  summary.error = run.error;
  summary.usage = run.usage;
  summary.aborted = run.aborted && summary.stopped === null;
  summary.models = [...models].sort();
  summary.seconds = (performance.now() - started) / 1000;
  return summary;
}

/** Buffers results and writes them in batches, one transaction each. */
class ResultWriter {
  private buffer: { paper: Candidate; result: ExtractionResult }[] = [];
  private oldest = 0;

  constructor(
    private readonly db: Db,
    private readonly provider: string,
    private readonly summary: ExtractCorpusSummary,
    private readonly batchSize: number,
    private readonly maxDelayMs: number,
  ) {}

  async add(paper: Candidate, result: ExtractionResult): Promise<void> {
    if (this.buffer.length === 0) this.oldest = performance.now();
    this.buffer.push({ paper, result });
    if (this.buffer.length >= this.batchSize || performance.now() - this.oldest >= this.maxDelayMs) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.buffer.length === 0) return;
    const batch = this.buffer;
    this.buffer = [];
    const db = this.db;
    const provider = dbProvider(db);
    const source = this.provider;
    const outcome = await db.$transaction(
      async (tx) => {
        // Optimistic check: write only papers still in the state they were planned in.
        const now = new Map(
          (await tx.paper.findMany({ where: { id: { in: batch.map((b) => b.paper.id) } }, select: { id: true, facetStatus: true } })).map((p) => [
            p.id,
            p.facetStatus,
          ]),
        );
        // A study created meanwhile protects its papers as planning would have.
        const studied = new Set(
          (await tx.studyItem.findMany({ where: { paperId: { in: batch.map((b) => b.paper.id) } }, select: { paperId: true } })).map((s) => s.paperId),
        );
        let changed = 0;
        let kept = 0;
        const replace: number[] = [];
        const items: (string | number)[][] = [];
        const attempts: {
          paperId: number;
          provider: string;
          model: string;
          status: string;
          error: string | null;
          promptTokens: number | null;
          completionTokens: number | null;
          truncated: boolean;
        }[] = [];
        const failedNew: { id: number; error: string }[] = [];
        for (const { paper, result } of batch) {
          if (now.get(paper.id) !== paper.facetStatus || studied.has(paper.id)) {
            changed++;
            continue;
          }
          attempts.push({
            paperId: paper.id,
            provider: source,
            model: result.model,
            status: result.ok ? "ok" : result.kind,
            error: result.ok ? null : result.reason,
            promptTokens: result.usage?.promptTokens ?? null,
            completionTokens: result.usage?.completionTokens ?? null,
            truncated: result.ok ? result.truncated : false,
          });
          if (result.ok) {
            replace.push(paper.id);
            for (const f of FACETS) result.facets[f as Facet].forEach((text, position) => items.push([paper.id, f, position, text, source]));
          } else if (paper.hadFacets) kept++;
          else failedNew.push({ id: paper.id, error: `${result.kind}: ${result.reason}` });
        }
        if (replace.length > 0) {
          await tx.facetItem.deleteMany({ where: { paperId: { in: replace } } });
          await bulkInsert(tx, provider, "FacetItem", ["paperId", "facet", "position", "text", "source"], items);
          await tx.paper.updateMany({ where: { id: { in: replace } }, data: { facetStatus: "extracted", facetError: null } });
        }
        for (const f of failedNew) await tx.paper.update({ where: { id: f.id }, data: { facetStatus: "failed", facetError: f.error } });
        // One multi-row INSERT (createMany through the driver adapters was a third of the
        // offline extraction's CPU at 64k papers). createdAt as Prisma writes it.
        if (attempts.length > 0) {
          const now = new Date().toISOString();
          const stamp = provider === "sqlite" ? now.replace(/Z$/, "+00:00") : now;
          const columns = ["paperId", "provider", "model", "status", "error", "promptTokens", "completionTokens", "truncated", "createdAt"];
          const rows = attempts.map((a) => [a.paperId, a.provider, a.model, a.status, a.error, a.promptTokens, a.completionTokens, a.truncated, stamp]);
          await bulkInsert(tx, provider, "Extraction", columns, rows);
        }
        return { changed, kept, items: items.length };
      },
      { timeout: 5 * 60_000, maxWait: 60_000 },
    );
    this.summary.changedMeanwhile += outcome.changed;
    this.summary.keptPrevious += outcome.kept;
    this.summary.itemsWritten += outcome.items;
  }
}
