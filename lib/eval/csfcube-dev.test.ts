import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { sharedDataDir } from "@/lib/paths";
import {
  aggregate,
  averagePrecision,
  CSFCUBE_DEV_FACETS,
  dcg,
  ndcgPercent,
  pairedMapDelta,
  readCsfcubePapers,
  readCsfcubeQueries,
  readSpecterRankings,
  scoreRanking,
  tfidfRankings,
} from "./csfcube-dev";

const dir = path.join(sharedDataDir(), "csfcube-dev");
const haveData = existsSync(path.join(dir, "dev-pid2anns-method.json"));

describe("CSFCube dev scorer", () => {
  test("AP with grade ≥ 2 relevant; DCG = r1 + Σ r_i / log2 i; NDCG over int(0.2 n)", () => {
    assert.equal(averagePrecision([3, 0, 2, 1]), (1 / 1 + 2 / 3) / 2);
    assert.equal(averagePrecision([1, 1, 0]), 0, "grade 1 is not relevant");
    assert.equal(dcg([3, 2, 1], 3), 3 + 2 / 1 + 1 / Math.log2(3));
    // n = 10 → top 2: gains [1, 3] against the ideal [3, 2].
    assert.equal(ndcgPercent([1, 3, 0, 0, 0, 0, 2, 0, 0, 0]), (1 + 3) / (3 + 2));
    assert.equal(ndcgPercent([0, 0, 0, 0, 0]), 0);
    const q = { pid: "Q", facet: "method" as const, cands: ["a", "b", "Q", "c"], grades: [0, 2, 3, 1] };
    const s = scoreRanking(q, ["b", "x", "a", "b", "c"]);
    assert.equal(s.ranked, 3, "ids outside the pool and repeats are not scored; the query is not ranked");
    assert.equal(s.ap, 1);
    const mk = (pid: string, ap: number) => ({ pid, facet: "method" as const, ap, ndcg20: 0, ranked: 1 });
    const d = pairedMapDelta([mk("1", 0.5), mk("2", 0.3)], [mk("2", 0.3), mk("1", 0.4)]);
    assert.ok(Math.abs(d.delta - 5) < 1e-9, "paired by query, in MAP points");
  });

  test(
    "reproduces SPECTER's 35.43 MAP / 53.02 NDCG%20 on the 24 dev queries from specter-ranked-*",
    { skip: !haveData && "../shared/data/csfcube-dev is absent" },
    () => {
      const queries = readCsfcubeQueries(dir);
      assert.equal(queries.length, 24);
      for (const f of CSFCUBE_DEV_FACETS) assert.equal(queries.filter((q) => q.facet === f).length, 8);
      const specter = readSpecterRankings(dir);
      const all = aggregate(queries.map((q) => scoreRanking(q, specter[q.facet][q.pid])));
      assert.equal(all.map.toFixed(2), "35.43");
      assert.equal(all.ndcg20.toFixed(2), "53.02");
      assert.ok(all.mapCi[0] < all.map && all.map < all.mapCi[1]);
    },
  );

  test(
    "the TF-IDF reference (sublinear tf) lands within a point of CSFCube's 38.27 / 54.66",
    { skip: !haveData && "../shared/data/csfcube-dev is absent" },
    () => {
      const queries = readCsfcubeQueries(dir);
      const rankings = tfidfRankings(readCsfcubePapers(dir), queries);
      const all = aggregate(queries.map((q) => scoreRanking(q, rankings.get(q) as string[])));
      assert.ok(Math.abs(all.map - 38.27) < 1, `${all.map}`);
      assert.ok(Math.abs(all.ndcg20 - 54.66) < 1, `${all.ndcg20}`);
    },
  );
});
