/**
 * A sharded graph build: the all-pairs kernel of topk.ts cut into row blocks that any number of
 * workers, on any number of machines, compute as separate jobs, their lists merged afterwards.
 *
 * A shard is one facet's chunk rows [from, to) (facetTopKOnBlocks' `chunkRows`): the blocks
 * (i, j ≥ i) for i in the range. Each shard keeps, for every paper its blocks touch, its best k
 * by (score, lower target first): a total order, so a paper's global top k is the top k of the
 * union of the shards' lists, whatever order they are merged in, and a pair lives in exactly one
 * block, so nothing is offered twice. The merged lists, hence graph.csr, are the ones a single
 * pass over the same chunks yields, byte for byte.
 *
 * Everything a block job reads or writes goes through the store (GraphShard rows), the one thing
 * every machine shares: the coordinator stores the kernel's inputs (each facet's packed item
 * vectors, the citation lists, the plan), block jobs store their lists, the coordinator merges
 * them and removes the rows once the build is complete. Rows carry the plan's fingerprint (a
 * hash of the inputs and kernel settings), so a resumed build whose inputs changed never merges
 * lists computed from other inputs, and one whose inputs did not reuses every finished block.
 */
import { createHash } from "node:crypto";
import { FACETS, type Facet } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { citationRows } from "./citation-score";
import type { PackedFacetItems } from "./maxsim";
import { DEFAULT_CHUNK_ITEMS, type FacetBlocks, MaxSimEngine, prepareFacetBlocks } from "./maxsim-engine";
import { type FacetTopK, facetTopKOnBlocks, type KernelStats } from "./topk";
import { type RankedNeighbours, TopKAccumulator } from "./topk-accumulator";

/** One block job's work: chunk rows [from, to) of one facet's all-pairs pass. */
export interface ShardTask {
  facet: Facet;
  shard: number;
  from: number;
  to: number;
}

export interface ShardPlan {
  /** Fingerprint of the inputs, the kernel settings and the tasks. */
  id: string;
  numPapers: number;
  k: number;
  alpha: number;
  beta: number;
  chunkItems: number;
  tasks: ShardTask[];
}

/** Items rows are stored in slices of at most this many bytes (one row each). */
const SLICE_BYTES = 16 * 1024 * 1024;

// ── the plan ──────────────────────────────────────────────────────────────────────────────

/**
 * Cuts one facet's chunk rows into at most `shards` contiguous ranges of about equal work (row i
 * costs its item rows times the item rows of chunks i..end). A facet without chunks still gets
 * one empty range: it carries the linked pairs of its papers without items.
 */
export function shardRanges(blocks: FacetBlocks, shards: number): { from: number; to: number }[] {
  const { chunks } = blocks;
  const n = chunks.length;
  if (n === 0) return [{ from: 0, to: 0 }];
  const rows = chunks.map((c) => c.numPapers * c.itemsPerPaper);
  const cost = new Float64Array(n);
  let tail = 0;
  for (let i = n - 1; i >= 0; i--) {
    tail += rows[i];
    cost[i] = rows[i] * tail;
  }
  const total = cost.reduce((s, c) => s + c, 0);
  const count = Math.max(1, Math.min(shards, n));
  const ranges: { from: number; to: number }[] = [];
  let from = 0;
  let acc = 0;
  for (let i = 0; i < n; i++) {
    acc += cost[i];
    const left = count - ranges.length - 1;
    // Close the range at its share of the work, keeping a chunk for each range still to come.
    if (left > 0 && (acc >= (total * (ranges.length + 1)) / count || n - (i + 1) === left)) {
      ranges.push({ from, to: i + 1 });
      from = i + 1;
    }
  }
  ranges.push({ from, to: n });
  return ranges;
}

function packRefs(refs: readonly (readonly number[])[]): Int32Array {
  const total = refs.reduce((s, r) => s + r.length, 0);
  const out = new Int32Array(1 + refs.length + 1 + total);
  out[0] = refs.length;
  let at = refs.length + 2;
  refs.forEach((r, p) => {
    out[1 + p + 1] = out[1 + p] + r.length;
    for (const t of r) out[at++] = t;
  });
  return out;
}

function unpackRefs(packed: Int32Array): number[][] {
  const n = packed[0];
  const base = n + 2;
  return Array.from({ length: n }, (_, p) => Array.from(packed.subarray(base + packed[1 + p], base + packed[2 + p])));
}

/** The plan of a sharded kernel over these inputs: its tasks, in merge order, and its fingerprint. */
export function planShards(
  packed: Partial<Record<Facet, PackedFacetItems>>,
  refs: readonly (readonly number[])[],
  settings: { shards: number; k: number; alpha: number; beta: number; chunkItems?: number },
): ShardPlan {
  const chunkItems = settings.chunkItems ?? DEFAULT_CHUNK_ITEMS;
  const hash = createHash("sha256");
  const tasks: ShardTask[] = [];
  for (const facet of FACETS) {
    const items = packed[facet];
    if (!items) continue;
    hash.update(`${facet}:${items.dim}:`);
    hash.update(bytesOf(items.offsets));
    hash.update(bytesOf(items.data));
    shardRanges(prepareFacetBlocks(items, chunkItems), settings.shards).forEach((r, shard) => tasks.push({ facet, shard, ...r }));
  }
  hash.update(bytesOf(packRefs(refs)));
  const plan = { numPapers: refs.length, k: settings.k, alpha: settings.alpha, beta: settings.beta, chunkItems, tasks };
  hash.update(JSON.stringify(plan));
  return { id: hash.digest("hex").slice(0, 32), ...plan };
}

// ── binary layout (little-endian typed arrays, as every platform Node runs on) ───────────────

const bytesOf = (a: ArrayBufferView): Uint8Array<ArrayBuffer> => new Uint8Array(a.buffer as ArrayBuffer, a.byteOffset, a.byteLength);

/** Length-prefixed parts, each padded to 4 bytes so the reader can view them in place. */
function packParts(parts: readonly ArrayBufferView[]): Uint8Array<ArrayBuffer> {
  const padded = (n: number) => (n + 3) & ~3;
  const size = 4 + parts.reduce((s, p) => s + 4 + padded(p.byteLength), 0);
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  view.setInt32(0, parts.length, true);
  let at = 4;
  for (const p of parts) {
    view.setInt32(at, p.byteLength, true);
    out.set(bytesOf(p), at + 4);
    at += 4 + padded(p.byteLength);
  }
  return out;
}

function unpackParts(bytes: Uint8Array): Uint8Array<ArrayBuffer>[] {
  // A copy: the store's buffer may start at an offset that is not a multiple of 4.
  const own = new Uint8Array(bytes);
  const view = new DataView(own.buffer);
  const parts: Uint8Array<ArrayBuffer>[] = [];
  let at = 4;
  for (let i = view.getInt32(0, true); i > 0; i--) {
    const len = view.getInt32(at, true);
    parts.push(new Uint8Array(own.buffer, at + 4, len));
    at += 4 + ((len + 3) & ~3);
  }
  return parts;
}

const int32 = (b: Uint8Array<ArrayBuffer>) => new Int32Array(b.buffer, b.byteOffset, b.byteLength / 4);
const float32 = (b: Uint8Array<ArrayBuffer>) => new Float32Array(b.buffer, b.byteOffset, b.byteLength / 4);
const utf8 = new TextEncoder();
const text = new TextDecoder();

function packLists(lists: RankedNeighbours): ArrayBufferView[] {
  return [Int32Array.of(lists.numPapers, lists.k, lists.auxWidth), lists.offsets, lists.targets, lists.scores, lists.aux];
}

function unpackLists(parts: Uint8Array<ArrayBuffer>[], at: number): RankedNeighbours {
  const [numPapers, k, auxWidth] = int32(parts[at]);
  return {
    numPapers,
    k,
    auxWidth,
    offsets: int32(parts[at + 1]),
    targets: int32(parts[at + 2]),
    scores: float32(parts[at + 3]),
    aux: float32(parts[at + 4]),
  };
}

/** A block's result as stored: its stats, its facet-score lists and its linked lists. */
export function encodeShardLists(result: FacetTopK): Uint8Array<ArrayBuffer> {
  const parts: ArrayBufferView[] = [utf8.encode(JSON.stringify(result.stats)), ...packLists(result.neighbours)];
  if (result.linked) parts.push(...packLists(result.linked));
  return packParts(parts);
}

export function decodeShardLists(bytes: Uint8Array): FacetTopK {
  const parts = unpackParts(bytes);
  return {
    stats: JSON.parse(text.decode(parts[0])) as KernelStats,
    neighbours: unpackLists(parts, 1),
    linked: parts.length > 6 ? unpackLists(parts, 6) : null,
  };
}

// ── the store ─────────────────────────────────────────────────────────────────────────────

/**
 * Stores the plan's inputs for the block jobs, unless this plan's are there already (a resumed
 * build with the same inputs). Rows of any other plan of the build are dropped first; the plan
 * row goes in last, in the same transaction, so block jobs never see half the inputs.
 */
export async function storeShardInputs(
  db: Db,
  buildId: number,
  plan: ShardPlan,
  packed: Partial<Record<Facet, PackedFacetItems>>,
  refs: readonly (readonly number[])[],
): Promise<boolean> {
  const have = await db.graphShard.findFirst({ where: { buildId, plan: plan.id, kind: "plan" }, select: { id: true } });
  if (have) return false;
  await db.$transaction(
    async (tx) => {
      await tx.graphShard.deleteMany({ where: { buildId } });
      const row = (kind: string, facet: string, part: number, data: Uint8Array<ArrayBuffer>) =>
        tx.graphShard.create({ data: { buildId, plan: plan.id, kind, facet, part, data }, select: { id: true } });
      for (const facet of FACETS) {
        const items = packed[facet];
        if (!items) continue;
        const whole = packParts([Int32Array.of(items.dim), items.offsets, items.data]);
        for (let part = 0; part * SLICE_BYTES < whole.length || part === 0; part++)
          await row("items", facet, part, whole.subarray(part * SLICE_BYTES, (part + 1) * SLICE_BYTES));
      }
      await row("citations", "", 0, bytesOf(packRefs(refs)));
      await row("plan", "", 0, utf8.encode(JSON.stringify(plan)));
    },
    { timeout: 30 * 60 * 1000, maxWait: 60_000 },
  );
  return true;
}

async function readPlan(db: Db, buildId: number, planId: string): Promise<ShardPlan> {
  const row = await db.graphShard.findFirst({ where: { buildId, plan: planId, kind: "plan" } });
  if (!row) throw new Error(`build ${buildId} holds no shard plan ${planId} (superseded by a newer run of its build, or the build completed)`);
  return JSON.parse(text.decode(row.data)) as ShardPlan;
}

async function readFacetItems(db: Db, buildId: number, planId: string, facet: Facet): Promise<PackedFacetItems> {
  const rows = await db.graphShard.findMany({ where: { buildId, plan: planId, kind: "items", facet }, orderBy: { part: "asc" }, select: { data: true } });
  const whole = new Uint8Array(rows.reduce((s, r) => s + r.data.length, 0));
  let at = 0;
  for (const r of rows) {
    whole.set(r.data, at);
    at += r.data.length;
  }
  const [dim, offsets, data] = unpackParts(whole);
  return { dim: int32(dim)[0], offsets: int32(offsets), data: float32(data) };
}

/** The plan's tasks whose lists are not stored yet. */
export async function missingShardTasks(db: Db, buildId: number, plan: ShardPlan): Promise<ShardTask[]> {
  const done = await db.graphShard.findMany({ where: { buildId, plan: plan.id, kind: "lists" }, select: { facet: true, part: true } });
  const have = new Set(done.map((d) => `${d.facet}:${d.part}`));
  return plan.tasks.filter((t) => !have.has(`${t.facet}:${t.shard}`));
}

/**
 * One block job: the lists of one shard from the stored inputs, stored in turn. Returns false
 * when they were stored already (a re-run after its worker died past that point).
 */
export async function computeShard(
  db: Db,
  ref: { buildId: number; plan: string; facet: Facet; shard: number },
  options: { onProgress?: (done: number, total: number) => void; threads?: number } = {},
): Promise<{ computed: boolean; stats?: KernelStats }> {
  const where = { buildId: ref.buildId, plan: ref.plan, kind: "lists", facet: ref.facet, part: ref.shard };
  if (await db.graphShard.findFirst({ where, select: { id: true } })) return { computed: false };
  const plan = await readPlan(db, ref.buildId, ref.plan);
  const task = plan.tasks.find((t) => t.facet === ref.facet && t.shard === ref.shard);
  if (!task) throw new Error(`shard plan ${ref.plan} has no shard ${ref.shard} of facet ${ref.facet}`);
  const items = await readFacetItems(db, ref.buildId, ref.plan, ref.facet);
  const refsRow = await db.graphShard.findFirstOrThrow({ where: { buildId: ref.buildId, plan: ref.plan, kind: "citations" }, select: { data: true } });
  const citations = citationRows(unpackRefs(int32(new Uint8Array(refsRow.data))));
  const blocks = prepareFacetBlocks(items, plan.chunkItems);
  const engine = await MaxSimEngine.create({ threads: options.threads });
  let result: FacetTopK;
  try {
    result = await facetTopKOnBlocks(blocks, engine, {
      k: plan.k,
      citations,
      alpha: plan.alpha,
      beta: plan.beta,
      chunkRows: { from: task.from, to: task.to },
      onProgress: options.onProgress,
    });
  } finally {
    await engine.release();
  }
  const data = encodeShardLists(result);
  // An upsert: a worker that lost its lease may store the same lists too (they are equal).
  await db.graphShard.upsert({
    where: { buildId_plan_kind_facet_part: where },
    create: { ...where, data },
    update: { data },
    select: { id: true },
  });
  return { computed: true, stats: result.stats };
}

/** Merges shards' lists (the same facet, any order) into the lists of the whole pass. */
export function mergeShardLists(numPapers: number, k: number, shards: readonly FacetTopK[]): FacetTopK {
  const acc = new TopKAccumulator(numPapers, k);
  const withLinks = shards.some((s) => s.linked !== null);
  const linked = withLinks ? new TopKAccumulator(numPapers, k, 2) : null;
  const stats: KernelStats = { flops: 0, denseFlops: 0, seconds: 0, onnxSeconds: 0, blocks: 0, linkedPairs: 0 };
  for (const s of shards) {
    const n = s.neighbours;
    if (n.numPapers !== numPapers) throw new Error(`mergeShardLists: lists of ${n.numPapers} papers, expected ${numPapers}`);
    for (let p = 0; p < numPapers; p++) for (let e = n.offsets[p]; e < n.offsets[p + 1]; e++) acc.offer(p, n.targets[e], n.scores[e]);
    const l = s.linked;
    if (l && linked)
      for (let p = 0; p < numPapers; p++)
        for (let e = l.offsets[p]; e < l.offsets[p + 1]; e++) linked.offer(p, l.targets[e], l.scores[e], l.aux[2 * e], l.aux[2 * e + 1]);
    stats.flops += s.stats.flops;
    stats.seconds += s.stats.seconds;
    stats.onnxSeconds += s.stats.onnxSeconds;
    stats.blocks += s.stats.blocks;
    stats.linkedPairs += s.stats.linkedPairs;
    stats.denseFlops = s.stats.denseFlops;
  }
  return { neighbours: acc.finish(), linked: linked ? linked.finish() : null, stats };
}

/** One facet's merged lists from the stored block results, in shard order. */
export async function readMergedShardLists(db: Db, buildId: number, plan: ShardPlan, facet: Facet): Promise<FacetTopK> {
  const want = plan.tasks.filter((t) => t.facet === facet);
  const shards: FacetTopK[] = [];
  for (const t of want) {
    const row = await db.graphShard.findFirst({ where: { buildId, plan: plan.id, kind: "lists", facet, part: t.shard }, select: { data: true } });
    if (!row) throw new Error(`build ${buildId}: shard ${t.shard} of facet ${facet} has no stored lists`);
    shards.push(decodeShardLists(row.data));
  }
  return mergeShardLists(plan.numPapers, plan.k, shards);
}

/** Drops a build's shard rows (once the build is complete they are never read again). */
export async function dropShardData(db: Db, buildId: number): Promise<number> {
  return (await db.graphShard.deleteMany({ where: { buildId } })).count;
}
