/**
 * DocID and trie statistics of the demo corpus, in the shape of the paper's Appendix
 * "Document Identifier Construction" (collisions, papers per identifier, trie nodes and
 * leaves), plus build costs.
 *
 *   npx tsx scripts/stats/docids.ts [papers.jsonl]
 *
 * Default input: $GRAFT_SHARED_DATA/acl-citegraph/papers.jsonl, GRAFT_SHARED_DATA defaulting to
 * ../shared/data beside the repository.
 */
import { existsSync } from "node:fs";
import path from "node:path";
import { FACETS } from "@/lib/corpus/types";
import { buildDocIdIndex, docIdStatistics, normalizeFacetItem, readDocIdSources, type DocIdSource } from "@/lib/genret/docid";
import { encodeDocIdTokens, getLlama3Tokenizer } from "@/lib/text/tokenizer";
import { buildFacetTrie, loadTrie, serializeTrie, trieStatistics } from "@/lib/genret/trie";
import { sharedDataDir } from "@/lib/corpus/paths";
import { fmt, table } from "./table";

const dataDir = sharedDataDir();
const corpusFile = process.argv[2] ?? path.join(dataDir, "acl-citegraph", "papers.jsonl");

const ms = (start: number): number => performance.now() - start;

function main(): void {
  if (!existsSync(corpusFile)) {
    console.error(`corpus not found: ${corpusFile}`);
    process.exit(1);
  }
  const papers = readDocIdSources(corpusFile);
  console.log(`corpus: ${corpusFile} (${fmt(papers.length)} papers)\n`);

  let t = performance.now();
  getLlama3Tokenizer();
  const loadMs = ms(t);
  // Tokenizer throughput over every normalised item at full length (first pass, so the
  // BPE cache starts cold, as in a fresh build).
  const texts = papers.flatMap((p) => FACETS.flatMap((f) => p.facets[f] ?? []).map(normalizeFacetItem));
  t = performance.now();
  let tokenCount = 0;
  for (const text of texts) tokenCount += encodeDocIdTokens(text).length;
  const encodeMs = ms(t);
  console.log(
    `tokenizer: load ${fmt(loadMs)} ms; ${fmt(texts.length)} items, ${fmt(tokenCount)} tokens ` +
      `in ${fmt(encodeMs)} ms = ${fmt(tokenCount / (encodeMs / 1000))} tokens/s ` +
      `(${fmt(tokenCount / texts.length, 1)} tokens per item before truncation)\n`,
  );

  t = performance.now();
  const index = buildDocIdIndex(papers);
  const indexMs = ms(t);
  const stats = docIdStatistics(index);
  console.log(`DocIDs (first ${stats.maxTokens} tokens; index built in ${fmt(indexMs)} ms)`);
  const docIdRow = (name: string, s: (typeof stats)["total"], perPaper: string): (string | number)[] => [
    name,
    fmt(s.items),
    fmt(s.truncatedItems),
    fmt(s.emptyItems),
    fmt(s.distinctDocIds),
    fmt(s.collisions),
    fmt(s.meanPapersPerDocId, 4),
    fmt(s.maxPapersPerDocId),
    fmt(s.papersWithDocIds),
    perPaper,
  ];
  table(
    ["facet", "items", "truncated", "empty", "distinct", "collisions", "papers/id", "max", "papers", "ids/paper"],
    [...FACETS.map((f) => docIdRow(f, stats.facets[f], fmt(stats.facets[f].docIdsPerPaper, 2))), docIdRow("total", stats.total, "")],
  );

  console.log("\nTries (nodes exclude the root, as in the paper's table; terminals = distinct DocIDs)");
  const rows: (string | number)[][] = [];
  const sum = { nodes: 0, terminals: 0, leaves: 0, nodeBytes: 0, fileBytes: 0, buildMs: 0, loadMs: 0 };
  for (const facet of FACETS) {
    t = performance.now();
    const trie = buildFacetTrie(index.facets[facet]);
    const buildMs = ms(t);
    const bytes = serializeTrie(trie);
    t = performance.now();
    loadTrie(bytes, { verify: false });
    const loadMs = ms(t);
    const s = trieStatistics(trie);
    rows.push([
      facet,
      fmt(s.nodesExcludingRoot),
      fmt(s.terminals),
      fmt(s.leaves),
      fmt(s.terminalsWithChildren),
      fmt(s.rootFanout),
      fmt(s.bytesPerNode, 2),
      fmt(s.fileBytes),
      fmt(buildMs, 1),
      fmt(loadMs, 2),
    ]);
    sum.nodes += s.nodesExcludingRoot;
    sum.terminals += s.terminals;
    sum.leaves += s.leaves;
    sum.nodeBytes += s.nodeBytes;
    sum.fileBytes += s.fileBytes;
    sum.buildMs += buildMs;
    sum.loadMs += loadMs;
  }
  rows.push([
    "total",
    fmt(sum.nodes),
    fmt(sum.terminals),
    fmt(sum.leaves),
    "",
    "",
    fmt(sum.nodeBytes / (sum.nodes + FACETS.length), 2),
    fmt(sum.fileBytes),
    fmt(sum.buildMs, 1),
    fmt(sum.loadMs, 2),
  ]);
  table(["facet", "nodes", "terminals", "leaves", "prefix-ids", "root fanout", "B/node", "file B", "build ms", "load ms"], rows);
  console.log(
    "\nB/node: token + childStart + identifier Int32 arrays over all nodes incl. the root;" +
      " file B adds the 32-byte header and the identifier->papers postings." +
      " prefix-ids: identifiers that are a prefix of another (EOS and continuation both allowed).",
  );
  readmeCrossCheck(papers);
}

/**
 * The data README's "18,157 distinct 12-word identifiers, 2 collisions" counts the corpus
 * together with the out-of-corpus queries, and cuts at 12 whitespace-separated words. Both
 * counts are printed so the Llama-3 figures above can be reconciled with it.
 */
function readmeCrossCheck(papers: DocIdSource[]): void {
  const oocFile = path.join(path.dirname(corpusFile), "ooc-queries.jsonl");
  if (!existsSync(oocFile)) return;
  const all = [...papers, ...readDocIdSources(oocFile)];
  let wordDistinct = 0;
  let wordCollisions = 0;
  for (const facet of FACETS) {
    const owners = new Map<string, Set<string>>();
    for (const paper of all) {
      for (const item of paper.facets[facet] ?? []) {
        const key = normalizeFacetItem(item).split(/\s+/).slice(0, 12).join(" ");
        const set = owners.get(key) ?? new Set<string>();
        set.add(paper.externalId);
        owners.set(key, set);
      }
    }
    wordDistinct += owners.size;
    for (const set of owners.values()) if (set.size > 1) wordCollisions += 1;
  }
  const total = docIdStatistics(buildDocIdIndex(all)).total;
  console.log(
    `\nREADME cross-check, corpus + ${fmt(all.length - papers.length)} out-of-corpus queries ` +
      `(${fmt(total.items)} items): 12 words -> ${fmt(wordDistinct)} distinct, ${fmt(wordCollisions)} ` +
      `collisions; 12 Llama-3 tokens -> ${fmt(total.distinctDocIds)} distinct, ${fmt(total.collisions)} collisions`,
  );
}

main();
