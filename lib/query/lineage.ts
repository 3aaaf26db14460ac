/**
 * Prior and derivative works of a result set (issue 19, as citation-graph tools show them): the
 * corpus papers that the results cite most often (prior works) and the corpus papers that cite
 * the most results (derivative works), each with its count. Papers of the set itself and the
 * query are left out: they are already on the screen.
 */
import type { ReferenceIndex } from "@/lib/retrieve/citation-expansion";

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
