import { FACETS, type Facet } from "@/lib/corpus/types";
import type { Db } from "@/lib/db/client";
import { fitLexicalModel, type LexicalModel } from "@/lib/graph/lexical";

/** A store corpus's facet items per paper (node order) and its TF-IDF model, as lib/graph/build.ts makes them. */
export interface LexicalCorpus {
  model: LexicalModel;
  perFacet: Record<Facet, string[][]>;
  papers: number;
  items: number;
}

/** Idf over the corpus papers' titles + abstracts, every item term in the vocabulary. */
export async function loadLexicalCorpus(db: Db, corpusName: string): Promise<LexicalCorpus> {
  const corpus = await db.corpus.findUnique({ where: { name: corpusName } });
  if (!corpus) throw new Error(`no corpus ${corpusName}`);
  const papers = await db.paper.findMany({
    where: { corpusId: corpus.id, role: "corpus" },
    select: { id: true, title: true, abstract: true },
    orderBy: { id: "asc" },
  });
  const node = new Map(papers.map((p, i) => [p.id, i]));
  const items = await db.facetItem.findMany({
    where: { paper: { corpusId: corpus.id, role: "corpus" } },
    select: { paperId: true, facet: true, text: true },
    orderBy: [{ paperId: "asc" }, { position: "asc" }],
  });
  const perFacet = Object.fromEntries(FACETS.map((f) => [f, papers.map(() => [] as string[])])) as Record<Facet, string[][]>;
  const texts: string[] = [];
  for (const it of items) {
    if (!(FACETS as readonly string[]).includes(it.facet)) continue;
    perFacet[it.facet as Facet][node.get(it.paperId) as number].push(it.text);
    texts.push(it.text);
  }
  const model = fitLexicalModel(
    papers.map((p) => `${p.title}\n${p.abstract}`),
    texts,
  );
  return { model, perFacet, papers: papers.length, items: items.length };
}
