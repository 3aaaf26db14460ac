import { FACETS, type Facet } from "@/lib/corpus/types";
import type { MultiSeedResult, RelatedResult } from "@/lib/query";

// The typed graph view's data, independent of cytoscape: the query (or a paper) in the centre,
// its related papers around it, one edge per credited facet (weight = the fusion weight), and the
// neighbourhoods the reader expands. Pure functions over plain objects, so they can be tested.

export const CENTER_ID = "__query__";

export interface GraphNode {
  id: string;
  title: string;
  year: number | null;
  venue: string | null;
  authors: string[];
  /** 0 the centre, 1 its related papers, 2+ papers added by expanding a node. */
  depth: number;
  /** Fused rank under the node that brought it in (0 for the centre). */
  rank: number;
  /** Whether it is a corpus paper with a page (the query of a pasted text is not). */
  linkable: boolean;
  /** A seed of a query of several seeds: its position in the query, from 0. */
  seed?: number;
  /** A result of several seeds: the seeds that surfaced it (positions from 0) and its rank in each one's list. */
  seeds?: { seed: number; rank: number }[];
}

export interface GraphEdge {
  id: string;
  source: string;
  target: string;
  facet: Facet;
  weight: number;
  /** Rank of the target in the source's list for this facet. */
  rank: number;
}

export interface GraphModel {
  centerId: string;
  nodes: GraphNode[];
  edges: GraphEdge[];
  /** Nodes whose neighbourhood has been added. */
  expanded: string[];
}

const edgeId = (source: string, target: string, facet: Facet) => `${source}→${target}:${facet}`;

export function fromResult(result: RelatedResult): GraphModel {
  const centerId = result.query.externalId ?? CENTER_ID;
  const center: GraphNode = {
    id: centerId,
    title: result.query.title || "Your paper",
    year: null,
    venue: null,
    authors: [],
    depth: 0,
    rank: 0,
    linkable: result.query.source === "corpus" && result.query.externalId !== null,
  };
  return addResults({ centerId, nodes: [center], edges: [], expanded: [centerId] }, centerId, result);
}

/**
 * A query of several seeds: every seed is a centre (depth 0), each result is linked to the seeds
 * that surfaced it, one edge per facet that seed's list credited, weighted by the seed's share in
 * the fused score (1 / (rrfK + rank)). Seeds without a corpus id get a placeholder id.
 */
export function fromSeedResult(result: MultiSeedResult): GraphModel {
  const seedIds = result.seeds.map((s) => s.externalId ?? `${CENTER_ID}${s.index}`);
  const nodes: GraphNode[] = result.seeds.map((s, i) => ({
    id: seedIds[i],
    title: s.title || `Seed ${s.index + 1}`,
    year: null,
    venue: null,
    authors: [],
    depth: 0,
    rank: 0,
    linkable: s.externalId !== null && s.source === "corpus",
    seed: s.index,
  }));
  const edges: GraphEdge[] = [];
  result.results.forEach((r, i) => {
    if (r.unreached) return;
    nodes.push({
      id: r.externalId,
      title: r.title,
      year: r.year,
      venue: r.venue,
      authors: r.authors,
      depth: 1,
      rank: i + 1,
      linkable: true,
      seeds: r.seeds.map((s) => ({ seed: s.seed, rank: s.rank })),
    });
    for (const s of r.seeds)
      for (const facet of s.facets) {
        const source = seedIds[s.seed];
        edges.push({ id: edgeId(source, r.externalId, facet), source, target: r.externalId, facet, weight: 1 / (result.rrfK + s.rank), rank: s.rank });
      }
  });
  return { centerId: seedIds[0], nodes, edges, expanded: [...seedIds] };
}

/** Adds a node's related papers (new nodes one level further out) and its typed edges to them. */
export function addResults(model: GraphModel, fromId: string, result: RelatedResult): GraphModel {
  const from = model.nodes.find((n) => n.id === fromId);
  if (!from) throw new Error(`addResults: no node ${fromId}`);
  const known = new Map(model.nodes.map((n) => [n.id, n]));
  const edgeIds = new Set(model.edges.map((e) => e.id));
  const nodes = [...model.nodes];
  const edges = [...model.edges];
  result.results.forEach((r, i) => {
    if (r.externalId === fromId) return;
    if (!known.has(r.externalId)) {
      const node: GraphNode = {
        id: r.externalId,
        title: r.title,
        year: r.year,
        venue: r.venue,
        authors: r.authors,
        depth: from.depth + 1,
        rank: i + 1,
        linkable: true,
      };
      known.set(node.id, node);
      nodes.push(node);
    }
    for (const f of r.facets) {
      // An edge already drawn the other way (B→A after A→B) is the same relation: skip it.
      if (edgeIds.has(edgeId(fromId, r.externalId, f.facet)) || edgeIds.has(edgeId(r.externalId, fromId, f.facet))) continue;
      const e: GraphEdge = { id: edgeId(fromId, r.externalId, f.facet), source: fromId, target: r.externalId, facet: f.facet, weight: f.weight, rank: f.rank };
      edgeIds.add(e.id);
      edges.push(e);
    }
  });
  return { ...model, nodes, edges, expanded: model.expanded.includes(fromId) ? model.expanded : [...model.expanded, fromId] };
}

/**
 * Nodes still connected to a centre when only edges of `facets` are shown (the centres always
 * are). Papers that only a hidden facet linked disappear with it.
 */
export function visibleNodes(model: GraphModel, facets: ReadonlySet<Facet>): Set<string> {
  const adj = new Map<string, string[]>();
  for (const e of model.edges) {
    if (!facets.has(e.facet)) continue;
    (adj.get(e.source) ?? adj.set(e.source, []).get(e.source)!).push(e.target);
    (adj.get(e.target) ?? adj.set(e.target, []).get(e.target)!).push(e.source);
  }
  // Every centre (the query, or each seed of several) is always shown.
  const roots = [model.centerId, ...model.nodes.filter((n) => n.depth === 0 && n.id !== model.centerId).map((n) => n.id)];
  const seen = new Set(roots);
  const queue = [...roots];
  while (queue.length) {
    const id = queue.shift()!;
    for (const n of adj.get(id) ?? []) {
      if (seen.has(n)) continue;
      seen.add(n);
      queue.push(n);
    }
  }
  return seen;
}

/** Each edge's weight relative to the weights present: 0 the weakest, 1 the strongest. */
export function relativeWeights(edges: GraphEdge[]): Map<string, number> {
  if (edges.length === 0) return new Map();
  let lo = Infinity;
  let hi = -Infinity;
  for (const e of edges) {
    lo = Math.min(lo, e.weight);
    hi = Math.max(hi, e.weight);
  }
  return new Map(edges.map((e) => [e.id, hi > lo ? (e.weight - lo) / (hi - lo) : 0.5]));
}

/** Edge width in pixels from its relative weight (1.5 … 7). */
export const edgeWidth = (relative: number) => 1.5 + 5.5 * relative;

/** Ideal edge length for the force layout: strong relations pull papers closer (90 … 220 px). */
export const edgeLength = (relative: number) => 90 + 130 * (1 - relative);

/**
 * A node's pie: the share of each facet among the facets of its edges, in facet order, as
 * percentages (so a paper two facets surfaced is half one colour, half the other).
 */
export function facetPie(model: GraphModel, id: string): Record<Facet, number> {
  const seen = new Set<Facet>();
  for (const e of model.edges) if (e.source === id || e.target === id) seen.add(e.facet);
  return Object.fromEntries(FACETS.map((f) => [f, seen.has(f) ? 100 / seen.size : 0])) as Record<Facet, number>;
}

/**
 * Ring for the concentric layout (higher = nearer the centre): the centre, then rank bands whose
 * sizes grow with the ring's circumference (1-5, 6-15, 16-35, 36+), expansions outermost.
 */
export function ringOf(n: GraphNode): number {
  if (n.depth === 0) return 10;
  if (n.depth > 1) return 2;
  return n.rank <= 5 ? 9 : n.rank <= 15 ? 8 : n.rank <= 35 ? 7 : 6;
}

/** A short node label: the title up to its colon, or its first words. */
export function shortTitle(title: string, max = 32): string {
  const head = title.split(/:\s/)[0];
  if (head.length <= max) return head;
  const cut = head.slice(0, max);
  return `${cut.slice(0, cut.lastIndexOf(" ") > 12 ? cut.lastIndexOf(" ") : max)}…`;
}

/** Credited facets of the edges touching a node, strongest first (for hover cards and the panel). */
export function nodeFacets(model: GraphModel, id: string): { facet: Facet; rank: number; weight: number; other: string }[] {
  return model.edges
    .filter((e) => e.source === id || e.target === id)
    .map((e) => ({ facet: e.facet, rank: e.rank, weight: e.weight, other: e.source === id ? e.target : e.source }))
    .sort((a, b) => FACETS.indexOf(a.facet) - FACETS.indexOf(b.facet) || b.weight - a.weight);
}

/**
 * Where to put `count` new nodes around the node they came from: on an arc facing away from the
 * centre (so the expansion grows outwards), `radius` from the anchor. Cheap and stable, unlike a
 * global force layout: the rest of the graph stays where the reader left it.
 */
export function burstPositions(anchor: { x: number; y: number }, centre: { x: number; y: number }, count: number, radius = 90): { x: number; y: number }[] {
  if (count === 0) return [];
  const dx = anchor.x - centre.x;
  const dy = anchor.y - centre.y;
  // The anchor is the centre itself (or on it): use the full circle.
  const outward = Math.hypot(dx, dy) < 1e-6 ? null : Math.atan2(dy, dx);
  const spread = outward === null ? 2 * Math.PI : Math.min(Math.PI * 1.2, 0.35 * Math.max(1, count));
  return Array.from({ length: count }, (_, i) => {
    const t = outward === null ? (2 * Math.PI * i) / count : outward - spread / 2 + (count === 1 ? spread / 2 : (spread * i) / (count - 1));
    // Alternate two rings so neighbours on a wide arc do not touch.
    const r = radius * (count > 8 && i % 2 ? 1.45 : 1);
    return { x: anchor.x + r * Math.cos(t), y: anchor.y + r * Math.sin(t) };
  });
}

/**
 * The springs of the force layout: one per pair of papers (however many facets link them), whose
 * length shrinks with the strongest link and with each further facet, so papers several facets
 * agree on sit closer without parallel springs dragging them onto the centre.
 */
export function layoutSprings(edges: GraphEdge[], relative: Map<string, number>): Map<string, number> {
  const pairs = new Map<string, { first: string; best: number; facets: number }>();
  for (const e of edges) {
    const key = e.source < e.target ? `${e.source}\u0000${e.target}` : `${e.target}\u0000${e.source}`;
    const r = relative.get(e.id) ?? 0.5;
    const p = pairs.get(key);
    if (p) {
      p.best = Math.max(p.best, r);
      p.facets++;
    } else pairs.set(key, { first: e.id, best: r, facets: 1 });
  }
  return new Map([...pairs.values()].map((p) => [p.first, edgeLength(p.best) * Math.max(0.6, 1 - 0.12 * (p.facets - 1))]));
}

/**
 * Node diameter by in-corpus citation count (the "size by citations" toggle): the area grows with
 * the count, so the most cited paper on screen is 44 px and an uncited one 14 px.
 */
export function citationSize(count: number, maxCount: number): number {
  if (maxCount <= 0) return 14;
  return Math.round(14 + 30 * Math.sqrt(Math.max(0, count) / maxCount));
}

/** Light to dark (the older, the paler) through these stops: readable on white, not a facet colour. */
const YEAR_STOPS = [
  [253, 231, 37],
  [94, 201, 98],
  [33, 145, 140],
  [59, 82, 139],
  [68, 1, 84],
] as const;

/** The colour of a year between the oldest and newest on screen (the "colour by year" toggle); grey without a year. */
export function yearColour(year: number | null, min: number, max: number): string {
  if (year === null) return "#d4d4d8";
  const t = max > min ? Math.min(1, Math.max(0, (year - min) / (max - min))) : 1;
  const x = t * (YEAR_STOPS.length - 1);
  const i = Math.min(YEAR_STOPS.length - 2, Math.floor(x));
  const f = x - i;
  const hex = (k: number) =>
    Math.round(YEAR_STOPS[i][k] + f * (YEAR_STOPS[i + 1][k] - YEAR_STOPS[i][k]))
      .toString(16)
      .padStart(2, "0");
  return `#${hex(0)}${hex(1)}${hex(2)}`;
}

/** Oldest and newest year among the nodes, or null when none has a year. */
export function yearRange(nodes: readonly GraphNode[]): { min: number; max: number } | null {
  const years = nodes.flatMap((n) => (n.year === null ? [] : [n.year]));
  return years.length ? { min: Math.min(...years), max: Math.max(...years) } : null;
}
