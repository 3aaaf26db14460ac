/**
 * Writes the token prior (lib/genret/token-prior.ts) for the corpus's identifiers, for the
 * trainer's --init-tokens (experiments; `graft build --stage genret` writes it itself):
 *
 *   npx tsx scripts/train/genret-token-prior.ts --out FILE [--corpus-dir D] [--build DIR]
 */
import { writeFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { sharedDataDir } from "@/lib/paths";
import { itemsOfPaper } from "@/lib/graph";
import { loadGenretCorpusFiles, newestGraphBuildDir } from "@/lib/genret/corpus-files";
import { buildIdentifiers } from "@/lib/genret";
import { identifierTokenPrior } from "@/lib/genret/token-prior";

const { values } = parseArgs({ options: { out: { type: "string" }, "corpus-dir": { type: "string" }, build: { type: "string" } } });
if (!values.out) throw new Error("--out FILE is required");
const corpusDir = values["corpus-dir"] ?? path.join(sharedDataDir(), "acl-citegraph");
const { corpus, data } = await loadGenretCorpusFiles(corpusDir, values.build ?? newestGraphBuildDir("acl-citegraph"));
const ids = buildIdentifiers(corpus);
const prior = identifierTokenPrior(
  ids,
  (f, p, i) => {
    const packed = data.items[f];
    return packed ? itemsOfPaper(packed, p)[i] : undefined;
  },
  data.dim,
);
writeFileSync(values.out, new Uint8Array(prior.buffer));
let zero = 0;
for (let c = 0; c < ids.vocab.size; c++) if (prior[c * data.dim] === 0 && prior[c * data.dim + 1] === 0) zero++;
console.log(JSON.stringify({ out: values.out, vocab: ids.vocab.size, dim: data.dim, tokensWithoutPrior: zero }));
