/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by `npm run train:rerank -- --train 800 --write`:
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
  ],
  mean: [
    0.491512, 0.219791, 0.155794, 0.156352, 0.137845, 0.153592, 0.783638, 0.191689, 0.468767, 0.11572, 0.166326, 0.780405, 2.4088, 1.4127, 0.569445, 0.0560394,
    0.331339,
  ],
  scale: [
    0.185786, 0.120378, 0.171651, 0.169846, 0.169415, 0.170106, 0.21271, 0.156398, 0.205565, 0.0532395, 0.203382, 0.653768, 1.111, 1.07628, 0.0695248, 0.353069,
    1.00508,
  ],
  weights: [
    0.530382, -0.158766, 0.193108, 0.104282, 0.0565416, 0.165751, -0.0287303, -0.036337, 0.0376525, 0.103886, 0.0910597, 0.318746, 0.0774735, 0.0167537,
    0.167863, 0.246251, 0.284306,
  ],
  bias: 0,
  depth: 100,
};
