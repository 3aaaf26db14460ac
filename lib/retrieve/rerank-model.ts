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
    "fusedScoreNewer",
    "wholeRankNewer",
    "bm25Newer",
    "tfidfNewer",
    "seedVoteNewer",
    "citedByNewer",
    "coCitedNewer",
    "coCitedSeedsNewer",
    "laterSeedsNewer",
    "titleMatchNewer",
    "encoderRelNewer",
  ],
  mean: [
    0.380518, 0.17409, 0.100351, 0.102024, 0.0916436, 0.100696, 0.686663, 0.126801, 0.42042, 0.0952733, 0.0356433, 0.128666, 0.531309, 0.134087, 0.0284875,
    0.0338437, 0.22461, 0.0387013, 0.0495612, 0.122962, 0.021, 0.288866, 0.31527, 0.0199204, 0.0308527, 0.472809, 0.680589, 0.138315, 0.108524, 0.0362936,
    0.122669, 0.0281611, 0.00479059, 0.0816546, 0.0208894, 0.00573977, 0.0475993, 0.0645529, 0.198239,
  ],
  scale: [
    0.173305, 0.0846775, 0.123675, 0.123145, 0.124792, 0.123267, 0.234352, 0.111298, 0.206256, 0.04754, 0.116032, 0.34627, 0.975116, 0.394169, 0.236698,
    0.263459, 0.176681, 0.174883, 0.143641, 0.311013, 1.68683, 0.453235, 0.639143, 0.0958901, 0.109711, 0.092657, 0.130114, 0.222624, 0.192825, 0.080579,
    0.219636, 0.0507378, 0.0415051, 0.405826, 0.157085, 0.0649877, 0.203254, 0.138297, 0.318407,
  ],
  weights: [
    0.474516, -0.0584897, 0.0728438, 0.0756501, 0.0125271, 0.0973029, -0.0728517, -0.0100102, -0.0772082, 0.0189504, 0.00850178, -0.0202077, 0.0478893, 0.11383,
    0.280167, 0.090765, 0.176099, 0.0357074, 0.0370754, -0.0874548, -0.445087, -0.0957243, 0.0846527, 0.0412429, 0.018949, 0.455967, 0.373009, 0.169802,
    0.193894, -0.15251, -0.0572917, 0.170329, -0.0263202, -0.127403, -0.0445727, -0.00382072, 0.109278, -0.077884, 0.0880268,
  ],
  bias: 0,
  depth: 200,
};
