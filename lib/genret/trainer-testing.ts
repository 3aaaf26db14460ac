/**
 * The trainer tests' toy task (trainer.test.ts: item vectors; trainer-tokens.test.ts: the items'
 * words): six papers with one item per facet, and paper i's problems item should decode to the
 * DocID of paper i+1.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import path from "node:path";
import { FACETS, type Facet } from "@/lib/corpus";
import { repoRoot } from "@/lib/paths";
import type { DistillationExamples } from "./distill";
import { generativeFacetLists, loadGenretModel, type GenerativeQuery } from "./model";
import type { PackInput } from "./pack";
import { buildIdentifiers, identifierFiles } from "./prepare";

export const TOY_PAPERS = 6;
const N = TOY_PAPERS;

export const toyFacets = Array.from({ length: N }, (_, i) => ({
  problems: [`problem number ${i} about topic ${"abcdef"[i]} in depth`],
  methods: [`method ${i}`],
  results: [`result ${i}`],
  contributions: [`contribution ${i}`],
}));

function toyExamples(): DistillationExamples {
  const targetPaper = Int32Array.from({ length: N }, (_, i) => (i + 1) % N);
  return {
    length: N,
    facet: new Uint8Array(N),
    origin: new Uint8Array(N),
    sourcePaper: Int32Array.from({ length: N }, (_, i) => i),
    sourceItem: new Int32Array(N),
    targetPaper,
    targetIdentifier: Int32Array.from(targetPaper),
    weight: new Float32Array(N).fill(1),
    negative: new Int32Array(N).fill(-1),
    meta: { numPapers: N, identifierCounts: { problems: N, methods: N, results: N, contributions: N }, kMin: 3, seed: 0, options: {} },
  };
}

/**
 * Writes the toy task's model folder files (identifiers, papers.json, genret.json) into `dir` and
 * returns the training pack's input: `problems` holds the problems items' vectors (N × dim; zeros
 * when absent), the other facets' vectors are zeros.
 */
export function writeToyTask(dir: string, dim: number, problems?: Float32Array): PackInput {
  const ids = buildIdentifiers({ ids: toyFacets.map((_, i) => `p${i}`), facets: toyFacets });
  const offsets = Int32Array.from({ length: N + 1 }, (_, i) => i);
  const items = Object.fromEntries(
    FACETS.map((f) => [f, { dim, offsets, data: f === "problems" && problems ? problems : new Float32Array(N * dim) }]),
  ) as Record<Facet, { dim: number; offsets: Int32Array; data: Float32Array }>;
  for (const f of identifierFiles(ids)) writeFileSync(path.join(dir, f.name), f.data);
  writeFileSync(path.join(dir, "papers.json"), JSON.stringify({ externalIds: toyFacets.map((_, i) => `p${i}`) }));
  writeFileSync(path.join(dir, "genret.json"), JSON.stringify({ embedder: "toy", variant: "toy" }));
  return { index: ids.index, vocab: ids.vocab, items, examples: toyExamples(), tries: ids.tries, embedder: "toy", variant: "toy" };
}

/** train.py's arguments for a tiny model on `dir/<pack>`, into `dir/run`. */
export function toyTrainerArgs(dir: string, options: { pack?: string; layers: number; condition?: string }, extra: string[]): string[] {
  return [
    path.join(repoRoot, "workers", "trainer", "train.py"),
    ...["--pack", path.join(dir, options.pack ?? "pack"), "--out", path.join(dir, "run")],
    ...(options.condition ? ["--condition", options.condition] : []),
    ...[
      "--d-model",
      "32",
      "--layers",
      String(options.layers),
      "--heads",
      "2",
      "--ff",
      "64",
      "--batch",
      "6",
      "--lr",
      "0.01",
      "--warmup",
      "10",
      "--dropout",
      "0",
    ],
    ...["--progress-every", "0", "--checkpoint-every", "0"],
    ...extra,
  ];
}

/**
 * Decodes every toy paper's problems query from the model in `dir` (`queryOf(i)`), checks each
 * answer is another paper of the trie (at most 4 beams), and returns how many put paper i+1 first.
 */
export async function toyTopOneCorrect(dir: string, queryOf: (i: number) => GenerativeQuery): Promise<number> {
  const model = await loadGenretModel(dir);
  try {
    let correct = 0;
    for (let i = 0; i < N; i++) {
      const list = (await generativeFacetLists(model, queryOf(i), { beams: 4, facets: ["problems"] })).problems ?? [];
      assert.ok(list.length > 0 && list.length <= 4);
      for (const c of list) assert.ok(c.paper >= 0 && c.paper < N && c.paper !== i);
      if (list[0].paper === (i + 1) % N) correct += 1;
    }
    return correct;
  } finally {
    await model.decoder.close();
  }
}
