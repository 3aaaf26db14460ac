import type { PaperGraph } from "@/lib/graph";
import { csrOf } from "@/lib/graph/csr-testing";
import type { UserPaperTable, UserPapersSection } from "./report";

/** Five papers, two facets. problems: 0→1 (.9), 1→2 (.8), 3→0 (.5); methods: 0→4 (.7), 4→3 (.6). */
export const fivePaperGraph: PaperGraph = {
  numPapers: 5,
  k: 2,
  facets: {
    problems: csrOf([[[1, 0.9]], [[2, 0.8]], [], [[0, 0.5]], []]),
    methods: csrOf([[[4, 0.7]], [], [], [], [[3, 0.6]]]),
  },
};

/** A user-paper section over `tables` with the harness's default rows named (BM25 the baseline, the ablation with the generative retriever). */
export const userPapersSection = (tables: UserPaperTable[]): UserPapersSection => ({
  corpus: "acl-citegraph",
  k: 50,
  baseline: "bm25",
  default: "hybrid",
  ablation: "hybrid-with-generative",
  settings: {},
  tables,
});
