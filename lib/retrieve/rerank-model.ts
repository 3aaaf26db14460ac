/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by `npm run train:rerank -- --train 800 --write`
 * (from captured rows: see reports/related-both-directions.md for the capture commands):
 * pairwise logistic regression fitted on 1600 training queries: train-split papers of acl-citegraph (and of its copy without citations)
 * queried as unseen papers with the other splits hidden (LLM facets, their records' year and authors; gold: the train papers
 * they cite and those citing them), their text-encoder cosines cross-fitted (encoders trained with the query's fold held out);
 * first-stage later-work weight 0.5; left out: dense; depth, L2 and the shift on "newer" (-1 logit)
 * chosen on the tuning halves of sets 2 and 3 and on prior-tune (both facet sources).
 */
import type { RerankModel } from "./rerank";

export const RERANK_MODEL: RerankModel | null = {
  features: [
    "fusedScore",
    "fusedRank",
    "problems",
    "methods",
    "results",
    "contributions",
    "facetCount",
    "wholeRank",
    "bm25",
    "tfidf",
    "seedVote",
    "seedCiters",
    "citedBy",
    "coCited",
    "sharedAuthors",
    "authorsCite",
    "titleMatch",
    "coCitedSeeds",
    "laterVote",
    "laterSeeds",
    "yearDelta",
    "newer",
    "citedByYear",
    "laterVoteNewer",
    "seedVoteOlder",
    "encoder",
    "encoderRel",
    "encoderNewer",
  ],
  mean: [
    0.380518, 0.17409, 0.100351, 0.102024, 0.0916436, 0.100696, 0.686663, 0.126801, 0.42042, 0.0952733, 0.0356433, 0.128666, 0.531309, 0.134087, 0.0284875,
    0.0338437, 0.22461, 0.0387013, 0.0495612, 0.122962, 0.021, 0.288866, 0.31527, 0.0199204, 0.0308527, 0.472809, 0.680589, 0.138315,
  ],
  scale: [
    0.173305, 0.0846775, 0.123675, 0.123145, 0.124792, 0.123267, 0.234352, 0.111298, 0.206256, 0.04754, 0.116032, 0.34627, 0.975116, 0.394169, 0.236698,
    0.263459, 0.176681, 0.174883, 0.143641, 0.311013, 1.68683, 0.453235, 0.639143, 0.0958901, 0.109711, 0.092657, 0.130114, 0.222624,
  ],
  weights: [
    0.443815, -0.0498932, 0.0803829, 0.0774529, 0.018532, 0.103375, -0.0348822, -0.0494563, -0.0753999, 0.0782102, -0.118684, -0.0285116, 0.0440611, 0.0896273,
    0.265825, 0.0899855, 0.132219, 0.0339759, -0.0183309, -0.0064993, -0.38221, -0.110293, -0.00738214, 0.125232, 0.191333, 0.414942, 0.369888, 0.281865,
  ],
  bias: 0,
  depth: 200,
};
