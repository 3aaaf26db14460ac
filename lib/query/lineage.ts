/**
 * Prior and derivative works of a result set (issue 19, as citation-graph tools show them): the
 * corpus papers that the results cite most often (prior works) and the corpus papers that cite
 * the most results (derivative works), each with its count. Papers of the set itself and the
 * query are left out: they are already on the screen.
 */
import { z } from "zod";
import { corpusName, requireCorpus } from "@/lib/corpus";
import type { Db } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { errorResponse, json, parseWith } from "@/lib/http";
import { type ReferenceIndex, loadGraph, NoGraphBuildError, type LoadedGraph, paperText } from "@/lib/retrieve";

export interface LineageEntry {
  node: number;
  /** Prior: results citing it; derivative: results it cites. */
  count: number;
}

export interface Lineage {
  prior: LineageEntry[];
  derivative: LineageEntry[];
}

function top(counts: Map<number, number>, limit: number): LineageEntry[] {
  return [...counts]
    .filter(([, c]) => c >= 2)
    .map(([node, count]) => ({ node, count }))
    .sort((a, b) => b.count - a.count || a.node - b.node)
    .slice(0, limit);
}

/** Works cited by / citing at least two of `results`, most first, at most `limit` of each. */
export function priorAndDerivative(references: ReferenceIndex, results: readonly number[], never: ReadonlySet<number> = new Set(), limit = 10): Lineage {
  const inSet = new Set(results);
  const skip = (n: number) => inSet.has(n) || never.has(n);
  const prior = new Map<number, number>();
  for (const r of inSet)
    for (let e = references.offsets[r]; e < references.offsets[r + 1]; e++) {
      const d = references.refs[e];
      if (!skip(d)) prior.set(d, (prior.get(d) ?? 0) + 1);
    }
  const derivative = new Map<number, number>();
  const numNodes = references.offsets.length - 1;
  for (let c = 0; c < numNodes; c++) {
    if (skip(c)) continue;
    let n = 0;
    for (let e = references.offsets[c]; e < references.offsets[c + 1]; e++) if (inSet.has(references.refs[e])) n++;
    if (n > 0) derivative.set(c, n);
  }
  return { prior: top(prior, limit), derivative: top(derivative, limit) };
}

/** How often each node is cited inside the corpus (its in-degree in the citation graph). */
export function citationCounts(references: ReferenceIndex): Int32Array {
  const counts = new Int32Array(references.offsets.length - 1);
  for (const d of references.refs) counts[d]++;
  return counts;
}

// ── the API operation: POST /api/corpora/:name/lineage ──────────────────────────────────────

/** Most papers one request may ask about (a result set is at most MAX_K = 100; the graph view adds expansions). */
export const MAX_LINEAGE_PAPERS = 500;

const paperId = z.string().trim().min(1, "paper id is empty").max(500, "paper id is too long");

/** The request: the result set's external ids, ids to leave out (the query), how many works of each kind. */
export const lineageRequest = z.strictObject({
  papers: z.array(paperId).min(1, "give at least one paper").max(MAX_LINEAGE_PAPERS, `at most ${MAX_LINEAGE_PAPERS} papers`),
  exclude: z.array(paperId).max(MAX_LINEAGE_PAPERS).default([]),
  limit: z.int().min(1).max(50).default(10),
});
export type LineageRequest = z.output<typeof lineageRequest>;

/** A prior or derivative work as the API answers it. */
export interface LineageWork {
  externalId: string;
  title: string;
  year: number | null;
  venue: string | null;
  /** Prior: how many of the papers cite it; derivative: how many of the papers it cites. */
  count: number;
}

export interface LineageResult {
  corpus: string;
  build: number;
  prior: LineageWork[];
  derivative: LineageWork[];
  /** In-corpus citations of each requested paper (node size in the graph view). */
  citationCounts: Record<string, number>;
}

/** Node indexes of `ids`; an id that is not a paper of the build is a 400 that names it. */
function nodesOf(g: LoadedGraph, ids: readonly string[]): number[] {
  const unknown = ids.filter((id) => !g.indexOfExternalId.has(id));
  if (unknown.length > 0) {
    const shown = unknown
      .slice(0, 5)
      .map((id) => JSON.stringify(id))
      .join(", ");
    throw new CodedError(
      "invalid_request",
      `${unknown.length} paper${unknown.length === 1 ? " is" : "s are"} not in corpus "${g.corpus}": ${shown}${unknown.length > 5 ? ", …" : ""}`,
    );
  }
  return ids.map((id) => g.indexOfExternalId.get(id) as number);
}

/** Prior and derivative works of a set of corpus papers, over the served build's in-corpus citations. */
export async function lineageOf(db: Db, corpus: string, request: LineageRequest): Promise<LineageResult> {
  let g: LoadedGraph;
  try {
    g = await loadGraph(db, corpus);
  } catch (err) {
    // No build and no corpus: the missing corpus is the news (404), not "run build" (409).
    if (err instanceof NoGraphBuildError) await requireCorpus(db, corpus);
    throw err;
  }
  const papers = nodesOf(g, request.papers);
  // The query may be an out-of-corpus paper, which is no node: only nodes can be left out.
  const never = new Set(request.exclude.flatMap((id) => g.indexOfExternalId.get(id) ?? []));
  const { references } = await paperText(db, g);
  const cited = g.memo("lineage-citation-counts", () => citationCounts(references));
  const { prior, derivative } = priorAndDerivative(references, papers, never, request.limit);
  const work = (e: LineageEntry): LineageWork => {
    const p = g.papers[e.node];
    return { externalId: p.externalId, title: p.title, year: p.year, venue: p.venue, count: e.count };
  };
  return {
    corpus: g.corpus,
    build: g.build,
    prior: prior.map(work),
    derivative: derivative.map(work),
    citationCounts: Object.fromEntries(papers.map((n) => [g.externalIds[n], cited[n]])),
  };
}

/** The HTTP side, framework-free: JSON in, LineageResult or `{ error: { code, message } }` out. */
export async function handleLineageRequest(db: Db, corpus: string, req: Request): Promise<Response> {
  try {
    const name = parseWith(corpusName, corpus);
    let body: unknown;
    try {
      body = await req.json();
    } catch {
      throw new CodedError("invalid_request", 'The request body is not valid JSON: send { "papers": [ids…], "exclude"?: [ids…], "limit"?: n }.');
    }
    return json(await lineageOf(db, name, parseWith(lineageRequest, body)));
  } catch (err) {
    return errorResponse(err, `POST /api/corpora/${corpus}/lineage`);
  }
}
