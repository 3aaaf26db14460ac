import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildIdentifiers } from "./prepare";
import { identifierTokenPrior } from "./token-prior";
import { compactIndex, EOS, PAD } from "./vocab";

describe("identifierTokenPrior", () => {
  // Two papers: "neural translation" (problems), "neural parsing" (problems); methods left out.
  const facets = [{ problems: ["neural translation"] }, { problems: ["neural parsing"] }];
  const ids = buildIdentifiers({ ids: ["a", "b"], facets });
  const vec = [Float32Array.from([1, 0, 0]), Float32Array.from([0, 1, 0])];
  const prior = identifierTokenPrior(ids, (f, p, i) => (f === "problems" && i === 0 ? vec[p] : undefined), 3);
  const row = (c: number) => Array.from(prior.subarray(c * 3, c * 3 + 3));
  const compact = compactIndex(ids.vocab);
  const tokensOf = (p: number) => ids.index.facets.problems.identifiers[ids.index.facets.problems.itemIdentifiers[p][0]];

  it("is the normalised mean of the embeddings of the identifiers that use a token", () => {
    const [a, b] = [new Set(tokensOf(0)), new Set(tokensOf(1))];
    const shared = [...a].filter((t) => b.has(t));
    assert.ok(shared.length > 0, "both DocIDs share the token(s) of 'neural'");
    for (const t of shared) {
      const r = row(compact.get(t) as number);
      assert.ok(Math.abs(r[0] - Math.SQRT1_2) < 1e-6 && Math.abs(r[1] - Math.SQRT1_2) < 1e-6 && r[2] === 0);
    }
    for (const t of a) if (!b.has(t)) assert.deepEqual(row(compact.get(t) as number), [1, 0, 0]);
    for (const t of b) if (!a.has(t)) assert.deepEqual(row(compact.get(t) as number), [0, 1, 0]);
  });

  it("leaves PAD, EOS and tokens of unembedded identifiers at zero", () => {
    assert.deepEqual(row(PAD), [0, 0, 0]);
    assert.deepEqual(row(EOS), [0, 0, 0]);
    const none = identifierTokenPrior(ids, () => undefined, 3);
    assert.ok(none.every((x) => x === 0));
  });
});
