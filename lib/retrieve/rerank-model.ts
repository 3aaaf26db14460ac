/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by `npm run train:rerank -- --train 800 --write`:
 * pairwise logistic regression fitted on 800 train-split papers of acl-citegraph queried as unseen papers with the
 * other splits hidden (LLM facets, their records' year and authors; gold: the train papers they cite and those citing them),
 * first-stage later-work weight 0.5; depth and L2 chosen on the tuning halves of sets 2 and 3 (both facet sources).
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
    "dense",
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
  ],
  mean: [
    0.50016, 0.209387, 0.145933, 0.145963, 0.132266, 0.145668, 0.837691, 0.175486, 0.453338, 0.103988, 0.120481, 0.402447, 1.23757, 0.419641, 0.561608,
    0.0444375, 0.10215, 0.24922, 0.119562, 0.150734, 0.352212, -0.093275, 0.267188, 0.738887, 0.060162, 0.104574,
  ],
  scale: [
    0.168702, 0.108714, 0.150409, 0.149118, 0.150924, 0.149647, 0.186887, 0.138288, 0.229678, 0.0550163, 0.200597, 0.543348, 1.22534, 0.658064, 0.0713435,
    0.304159, 0.464102, 0.188235, 0.304747, 0.232692, 0.463923, 1.75851, 0.442491, 0.84989, 0.167869, 0.193523,
  ],
  weights: [
    0.675511, -0.0761869, 0.109102, 0.0935608, 0.0304585, 0.130901, -0.0480356, -0.204077, 0.0131463, 0.230187, -0.287271, -0.0472245, -0.150473, 0.220294,
    0.254316, 0.288104, 0.150039, 0.227526, 0.0806257, 0.0248879, -0.0541786, -0.350362, 0.844257, -0.0139984, 0.134797, 0.517309,
  ],
  bias: 0,
  depth: 100,
};
