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
    0.376638, 0.17409, 0.10369, 0.105985, 0.0971995, 0.103746, 0.746784, 0.12585, 0.403836, 0.0905867, 0.0745081, 0.268536, 1.0855, 0.290088, 0.552479,
    0.0292875, 0.0680188, 0.216232, 0.076136, 0.101943, 0.251172, -0.0456688, 0.277869, 0.641201, 0.0411732, 0.0645,
  ],
  scale: [
    0.174026, 0.0846775, 0.122052, 0.121004, 0.122794, 0.121672, 0.220716, 0.112103, 0.223152, 0.0514765, 0.157507, 0.458073, 1.16249, 0.550944, 0.0706806,
    0.239515, 0.370125, 0.177692, 0.239977, 0.192758, 0.405911, 1.74216, 0.447948, 0.786959, 0.134719, 0.150277,
  ],
  weights: [
    0.611311, -0.0569553, 0.108133, 0.079934, 0.0168696, 0.109097, 0.0668175, -0.142043, -0.0226944, 0.235355, -0.173529, -0.0137575, 0.0306252, 0.211426,
    0.240983, 0.26028, 0.127618, 0.210745, 0.0482585, -0.00057802, 0.00756348, -0.263034, 0.447019, -0.102956, 0.162722, 0.300828,
  ],
  bias: 0,
  depth: 200,
};
