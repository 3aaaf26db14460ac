/**
 * The default retriever's second stage (lib/retrieve/rerank.ts), written by `npm run train:rerank -- --train 1200 --write`:
 * pairwise logistic regression fitted on 1185 train-split papers of acl-citegraph queried as unseen papers
 * (LLM facets; gold: their corpus references), depth and L2 chosen on the tuning half of the unseen test papers.
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
  ],
  mean: [0.610355, 0.267061, 0.213131, 0.209325, 0.183709, 0.208971, 0.849234, 0.257555, 0.495716, 0.12518, 0.242465, 1.04262, 2.61693, 1.70618, 0.576514],
  scale: [0.169964, 0.1453, 0.201574, 0.200121, 0.200468, 0.199899, 0.182349, 0.180083, 0.219211, 0.0586523, 0.233448, 0.659569, 1.13735, 1.10632, 0.0699518],
  weights: [
    0.497286, -0.215599, 0.225488, 0.127231, 0.0969756, 0.172257, -0.0441435, -0.0434272, 0.110346, 0.0863989, 0.265668, 0.260866, 0.0483712, -0.0705072,
    0.157273,
  ],
  bias: 0,
  depth: 50,
};
