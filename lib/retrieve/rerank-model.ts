/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by `npm run train:rerank -- --train 1200 --write`:
 * pairwise logistic regression fitted on 1185 train-split papers of acl-citegraph queried as unseen papers
 * (LLM facets, their records' authors; gold: their corpus references), depth and L2 chosen on the tuning half of the unseen test papers.
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
  ],
  mean: [
    0.491512, 0.219791, 0.155794, 0.156352, 0.137845, 0.153592, 0.783638, 0.191689, 0.468767, 0.11572, 0.166326, 0.780405, 2.4088, 1.4127, 0.569445, 0.0560394,
    0.331339, 0.275625, 0.347529,
  ],
  scale: [
    0.185786, 0.120378, 0.171651, 0.169846, 0.169415, 0.170106, 0.21271, 0.156398, 0.205565, 0.0532395, 0.203382, 0.653768, 1.111, 1.07628, 0.0695248, 0.353069,
    1.00508, 0.19262, 0.537841,
  ],
  weights: [
    0.590671, -0.192727, 0.198137, 0.101081, 0.0608092, 0.152397, -0.0519228, -0.0588141, 0.0475798, -0.0136383, 0.0716873, 0.304313, 0.124833, -0.0571567,
    0.149669, 0.256442, 0.294226, 0.272227, 0.117031,
  ],
  bias: 0,
  depth: 100,
};
