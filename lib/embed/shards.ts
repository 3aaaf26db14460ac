/**
 * Sharded item embedding (issue 18, "beyond one machine"): the texts a sharded graph build still
 * misses in its vector cache, cut into slices that any number of workers, on any number of
 * machines, embed as separate jobs ("embed-slice", lib/jobs/stages/embed-slice.ts).
 *
 * The vector cache (cache.ts) is a folder on the coordinator's machine, so the slices travel
 * through the store, the one thing every machine shares, as GraphShard rows of the build (the
 * table the kernel's row blocks use, lib/graph/shards.ts, with kinds of their own): the
 * coordinator stores each slice's texts and then the plan, a slice job stores its slice's
 * vectors, and once every slice has them the coordinator appends them to its cache in slice
 * order and drops the rows. The graph stage then reads every vector from the cache, as an
 * unsharded build does.
 *
 * Same vectors, byte for byte, as one process: the missing texts are listed as embedWithCache
 * lists them, and slices are cut at multiples of the unsharded path's unit of work (a
 * ParallelEmbedder chunk of 256 texts, itself a multiple of every embedder's batch), and each
 * slice job embeds through the same kind of pool (createEmbedPool), so every text meets the same
 * batch-mates as in one process. Appending in slice order makes even the cache files the same.
 *
 * A slice job needs the store and the embedder its plan names (`spec`; a USE-lite worker needs
 * nothing else, an LSA one the model folder at the same path), and it refuses to store vectors
 * of another model (the created embedder's id must be the plan's). Rows carry the plan's
 * fingerprint (embedder, slice size, every missing text's key), so a resumed build whose cache
 * or items changed never appends vectors of other texts, and one whose did not reuses every
 * slice already stored.
 */
import { createHash } from "node:crypto";
import os from "node:os";
import type { Db } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { readVectorCacheKeys, textKey, VectorCacheWriter } from "./cache";
import { createEmbedPool, DEFAULT_CHUNK } from "./parallel";

/** GraphShard kinds of the embedding slices (the kernel's are plan, citations, items, lists). */
export const EMBED_KINDS = { plan: "embed-plan", texts: "embed-texts", vectors: "embed-vectors" } as const;
const ALL_KINDS = Object.values(EMBED_KINDS);

/** Slices are cut at multiples of this many texts (see the header: same batches as one process). */
export const SLICE_UNIT = DEFAULT_CHUNK;
/** A slice's vectors row stays under this size (the kernel's item rows are cut at the same). */
const MAX_SLICE_BYTES = 16 * 1024 * 1024;

export interface EmbedSlicePlan {
  /** Fingerprint of the embedder, the slice size and the missing texts' keys. */
  id: string;
  /** The embedder spec slice jobs create (the graph stage's own). */
  spec: string;
  /** The id that embedder must report (the coordinator's cache is this embedder's). */
  embedderId: string;
  dim: number;
  /** Embedding processes per slice job (the graph job's `workers`; absent: one per core, at most 2). */
  workers?: number;
  /** Texts per slice (a multiple of SLICE_UNIT); the last slice may hold fewer. */
  sliceItems: number;
  /** Missing texts, over every slice. */
  texts: number;
  slices: number;
}

/**
 * Texts per slice: the missing texts spread over `shards` slices, rounded up to SLICE_UNIT, and
 * capped so a slice's vectors fit one row (more, smaller slices then: more workers can share
 * them, and a killed worker loses less).
 */
export function sliceItemsFor(missing: number, shards: number, dim: number): number {
  const roundUp = (n: number) => Math.max(SLICE_UNIT, Math.ceil(n / SLICE_UNIT) * SLICE_UNIT);
  const cap = Math.max(SLICE_UNIT, Math.floor(MAX_SLICE_BYTES / (dim * 4) / SLICE_UNIT) * SLICE_UNIT);
  return Math.min(cap, roundUp(Math.ceil(missing / Math.max(1, shards))));
}

/** The plan of slicing these missing texts (their keys, in cache order). */
export function planEmbedSlices(
  missingKeys: readonly Buffer[],
  settings: { spec: string; embedderId: string; dim: number; shards: number; workers?: number },
): EmbedSlicePlan {
  const sliceItems = sliceItemsFor(missingKeys.length, settings.shards, settings.dim);
  const hash = createHash("sha256");
  hash.update(JSON.stringify({ embedder: settings.embedderId, dim: settings.dim, sliceItems }));
  for (const k of missingKeys) hash.update(k);
  return {
    id: hash.digest("hex").slice(0, 32),
    spec: settings.spec,
    embedderId: settings.embedderId,
    dim: settings.dim,
    ...(settings.workers !== undefined ? { workers: settings.workers } : {}),
    sliceItems,
    texts: missingKeys.length,
    slices: Math.ceil(missingKeys.length / sliceItems),
  };
}

// ── binary layout of a vectors row: [count, dim] int32, count 32-byte keys, count × dim float32 (little-endian) ──

export function encodeSliceVectors(keys: readonly Buffer[], rows: readonly Float32Array[], dim: number): Uint8Array<ArrayBuffer> {
  if (keys.length !== rows.length) throw new Error(`encodeSliceVectors: ${keys.length} keys for ${rows.length} rows`);
  const n = keys.length;
  const out = new Uint8Array(8 + n * 32 + n * dim * 4);
  const view = new DataView(out.buffer);
  view.setInt32(0, n, true);
  view.setInt32(4, dim, true);
  keys.forEach((k, i) => out.set(k, 8 + i * 32));
  // 8 + 32n is a multiple of 4: the floats can be viewed in place.
  const floats = new Float32Array(out.buffer, 8 + n * 32, n * dim);
  rows.forEach((r, i) => {
    if (r.length !== dim) throw new Error(`encodeSliceVectors: row ${i} has ${r.length} values, expected ${dim}`);
    floats.set(r, i * dim);
  });
  return out;
}

export function decodeSliceVectors(bytes: Uint8Array): { keys: Buffer[]; rows: Float32Array[]; dim: number } {
  // A copy: the store's buffer may start at an offset that is not a multiple of 4.
  const own = new Uint8Array(bytes);
  const view = new DataView(own.buffer);
  const n = view.getInt32(0, true);
  const dim = view.getInt32(4, true);
  if (own.length !== 8 + n * 32 + n * dim * 4) throw new Error(`a slice's vectors row has ${own.length} bytes, not the ${n} × ${dim} it announces`);
  const keys = Array.from({ length: n }, (_, i) => Buffer.from(own.buffer, 8 + i * 32, 32));
  const floats = new Float32Array(own.buffer, 8 + n * 32, n * dim);
  return { keys, rows: Array.from({ length: n }, (_, i) => floats.subarray(i * dim, (i + 1) * dim)), dim };
}

const utf8 = new TextEncoder();
const text = new TextDecoder();

// ── the store ─────────────────────────────────────────────────────────────────────────────

/**
 * Stores the plan's slices (their texts) for the slice jobs, unless this plan's are there
 * already (a resumed build with the same missing texts). Embedding rows of any other plan of
 * the build are dropped first; the plan row goes in last, in the same transaction, so slice
 * jobs never see half the texts.
 */
export async function storeEmbedSlices(db: Db, buildId: number, plan: EmbedSlicePlan, missingTexts: readonly string[]): Promise<boolean> {
  if (missingTexts.length !== plan.texts) throw new Error(`storeEmbedSlices: ${missingTexts.length} texts for a plan of ${plan.texts}`);
  const have = await db.graphShard.findFirst({ where: { buildId, plan: plan.id, kind: EMBED_KINDS.plan }, select: { id: true } });
  if (have) return false;
  await db.$transaction(
    async (tx) => {
      await tx.graphShard.deleteMany({ where: { buildId, kind: { in: ALL_KINDS } } });
      const row = (kind: string, part: number, data: Uint8Array<ArrayBuffer>) =>
        tx.graphShard.create({ data: { buildId, plan: plan.id, kind, facet: "", part, data }, select: { id: true } });
      for (let s = 0; s < plan.slices; s++)
        await row(EMBED_KINDS.texts, s, utf8.encode(JSON.stringify(missingTexts.slice(s * plan.sliceItems, (s + 1) * plan.sliceItems))));
      await row(EMBED_KINDS.plan, 0, utf8.encode(JSON.stringify(plan)));
    },
    { timeout: 30 * 60 * 1000, maxWait: 60_000 },
  );
  return true;
}

async function readPlan(db: Db, buildId: number, planId: string): Promise<EmbedSlicePlan> {
  const row = await db.graphShard.findFirst({ where: { buildId, plan: planId, kind: EMBED_KINDS.plan }, select: { data: true } });
  if (!row)
    throw new Error(`build ${buildId} holds no embedding plan ${planId} (superseded by a newer run of its build, or its vectors are in the cache already)`);
  return JSON.parse(text.decode(row.data)) as EmbedSlicePlan;
}

/** The plan's slices whose vectors are not stored yet. */
export async function missingEmbedSlices(db: Db, buildId: number, plan: EmbedSlicePlan): Promise<number[]> {
  const done = await db.graphShard.findMany({ where: { buildId, plan: plan.id, kind: EMBED_KINDS.vectors }, select: { part: true } });
  const have = new Set(done.map((d) => d.part));
  return Array.from({ length: plan.slices }, (_, s) => s).filter((s) => !have.has(s));
}

export interface EmbedSliceOptions {
  /** Embedding processes (default: the plan's, else one per core, at most 2). */
  workers?: number;
  /** (done, total) texts of the slice, after each step. */
  onProgress?: (done: number, total: number) => void;
  /** Awaited after each step but the last, before the next: a safe point (shutdown, failpoints). */
  betweenSteps?: (done: number, total: number) => void | Promise<void>;
  /** @internal tests: the module the embedding processes load createEmbedder from. */
  factoryModule?: string;
}

/**
 * One slice job: its texts from the store, embedded, their vectors stored in turn. Returns
 * computed false when they were stored already (a re-run after its worker died past that point).
 */
export async function embedSlice(
  db: Db,
  ref: { buildId: number; plan: string; slice: number },
  options: EmbedSliceOptions = {},
): Promise<{ computed: boolean; texts: number; seconds: number }> {
  const where = { buildId: ref.buildId, plan: ref.plan, kind: EMBED_KINDS.vectors, facet: "", part: ref.slice };
  if (await db.graphShard.findFirst({ where, select: { id: true } })) return { computed: false, texts: 0, seconds: 0 };
  const plan = await readPlan(db, ref.buildId, ref.plan);
  if (ref.slice >= plan.slices) throw new Error(`embedding plan ${ref.plan} has no slice ${ref.slice} (it has ${plan.slices})`);
  const row = await db.graphShard.findFirst({ where: { ...where, kind: EMBED_KINDS.texts }, select: { data: true } });
  if (!row) throw new Error(`build ${ref.buildId}: slice ${ref.slice} of embedding plan ${ref.plan} has no stored texts`);
  const texts = JSON.parse(text.decode(row.data)) as string[];
  const t0 = performance.now();
  const workers = options.workers ?? plan.workers ?? Math.min(2, os.availableParallelism());
  const pool = await createEmbedPool(plan.spec, { workers, factoryModule: options.factoryModule });
  const rows: Float32Array[] = [];
  try {
    if (pool.id !== plan.embedderId || pool.dim !== plan.dim)
      throw new CodedError(
        "conflict",
        `embedder "${plan.spec}" here is ${pool.id} (dim ${pool.dim}), the build's is ${plan.embedderId} (dim ${plan.dim}): this worker has another model`,
      );
    // Steps of whole chunks, one per embedding process: the pool's chunks start where a single
    // pass's do, and the job can stop between steps.
    const step = SLICE_UNIT * workers;
    for (let s = 0; s < texts.length; s += step) {
      for (const v of await pool.embed(texts.slice(s, s + step))) rows.push(v);
      const done = Math.min(s + step, texts.length);
      options.onProgress?.(done, texts.length);
      if (done < texts.length) await options.betweenSteps?.(done, texts.length);
    }
  } finally {
    await pool.close();
  }
  const data = encodeSliceVectors(texts.map(textKey), rows, plan.dim);
  // An upsert: a worker that lost its lease may store the same vectors too (they are equal).
  await db.graphShard.upsert({
    where: { buildId_plan_kind_facet_part: where },
    create: { ...where, data },
    update: { data },
    select: { id: true },
  });
  return { computed: true, texts: texts.length, seconds: (performance.now() - t0) / 1000 };
}

/** Drops a build's embedding rows (once their vectors are in the coordinator's cache). */
export async function dropEmbedSlices(db: Db, buildId: number): Promise<number> {
  return (await db.graphShard.deleteMany({ where: { buildId, kind: { in: ALL_KINDS } } })).count;
}

// ── the coordinator ───────────────────────────────────────────────────────────────────────

export interface EmbedInSlicesOptions {
  /** The coordinator's vector cache (cacheDirFor(corpus, embedder id)). */
  dir: string;
  /** The embedder spec slice jobs create, and the id and dim it must have. */
  spec: string;
  embedder: { id: string; dim: number };
  /** Slices wanted (the graph job's shards): more when a slice's vectors would not fit one row. */
  shards: number;
  /** Embedding processes per slice job. */
  workers?: number;
  /** Resolves once every slice of the plan has its vectors stored (its texts are stored already). */
  runSlices: (plan: EmbedSlicePlan) => Promise<void>;
  /** (done, total) texts appended to the cache. */
  onProgress?: (done: number, total: number) => void;
}

/**
 * Embeds the texts missing from the cache at `dir` as slice jobs and appends their vectors to
 * it, in order, one commit per slice; the caller then reads every vector from the cache
 * (embedWithCache finds nothing left to embed). Returns how many texts the slices embedded.
 * A cache of another embedder is left alone: embedWithCache refuses it with its own message.
 */
export async function embedMissingInSlices(db: Db, buildId: number, texts: readonly string[], options: EmbedInSlicesOptions): Promise<number> {
  const cached = readVectorCacheKeys(options.dir);
  if (cached && (cached.manifest.embedder !== options.embedder.id || cached.manifest.dim !== options.embedder.dim)) return 0;
  // The missing texts as embedWithCache lists them: first occurrences, in input order.
  const seen = new Set<string>();
  if (cached) for (let i = 0; i < cached.manifest.count; i++) seen.add(Buffer.from(cached.keys.buffer, cached.keys.byteOffset + i * 32, 32).toString("hex"));
  const missingKeys: Buffer[] = [];
  const missingTexts: string[] = [];
  for (const t of texts) {
    const k = textKey(t);
    const hex = k.toString("hex");
    if (seen.has(hex)) continue;
    seen.add(hex);
    missingKeys.push(k);
    missingTexts.push(t);
  }
  if (missingTexts.length === 0) return 0;

  const plan = planEmbedSlices(missingKeys, {
    spec: options.spec,
    embedderId: options.embedder.id,
    dim: options.embedder.dim,
    shards: options.shards,
    workers: options.workers,
  });
  await storeEmbedSlices(db, buildId, plan, missingTexts);
  await options.runSlices(plan);

  const cache = VectorCacheWriter.open(options.dir, options.embedder);
  let appended = 0;
  try {
    options.onProgress?.(0, plan.texts);
    for (let s = 0; s < plan.slices; s++) {
      const row = await db.graphShard.findFirst({ where: { buildId, plan: plan.id, kind: EMBED_KINDS.vectors, part: s }, select: { data: true } });
      if (!row) throw new Error(`build ${buildId}: slice ${s} of embedding plan ${plan.id.slice(0, 8)} has no stored vectors`);
      const { keys, rows, dim } = decodeSliceVectors(row.data);
      const want = missingKeys.slice(s * plan.sliceItems, (s + 1) * plan.sliceItems);
      if (dim !== plan.dim || keys.length !== want.length || keys.some((k, i) => !k.equals(want[i])))
        throw new Error(`build ${buildId}: the stored vectors of slice ${s} are not those of its texts`);
      // Another build of the corpus may have cached some of these texts meanwhile.
      const fresh = keys.flatMap((k, i) => (cache.get(k) ? [] : [i]));
      cache.append(
        fresh.map((i) => keys[i]),
        fresh.map((i) => rows[i]),
      );
      appended += fresh.length;
      options.onProgress?.(Math.min((s + 1) * plan.sliceItems, plan.texts), plan.texts);
    }
  } finally {
    cache.close();
  }
  await dropEmbedSlices(db, buildId);
  return appended;
}
