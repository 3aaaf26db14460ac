import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { FACETS } from "@/lib/corpus";
import { testProvider } from "@/lib/db/testing";
import { buildGraphStage } from "@/lib/graph/build";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { repoRoot } from "@/lib/paths";
import { missingModelFiles } from "./model";
import { installPretrainedModel, PRETRAINED_DIR } from "./pretrained";

// The demo corpus's generative retriever ships under models/ (weights out of lib/, issue 30):
// the installer's default folder holds it, and installing reads it from there.

test("the shipped model lies in models/genret-acl-citegraph, complete but for the tries (rebuilt on install)", () => {
  assert.equal(PRETRAINED_DIR, path.join(repoRoot, "models", "genret-acl-citegraph"));
  assert.deepEqual(
    missingModelFiles(PRETRAINED_DIR),
    FACETS.map((f) => `trie-${f}.bin`),
  );
  const meta = JSON.parse(readFileSync(path.join(PRETRAINED_DIR, "genret.json"), "utf8")) as { embedder: string; variant: string };
  assert.ok(meta.embedder && meta.variant, "genret.json names the embedder and the variant");
  const papers = JSON.parse(readFileSync(path.join(PRETRAINED_DIR, "papers.json"), "utf8")) as { externalIds: string[] };
  assert.equal(papers.externalIds.length, 3081, "the acl-citegraph corpus");
});

describe(`installing the shipped model checks it fits the corpus (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-genret-pretrained-");

  test("no graph build yet: refused, naming the step", async () => {
    await assert.rejects(installPretrainedModel(t.db, "mini"), /has no graph build/);
  });

  test("another corpus's graph build: refused after reading the shipped genret.json and papers.json", async () => {
    await buildGraphStage(t.db, { corpus: "mini", k: 2, workers: 1 });
    const builds = await t.db.build.count();
    await assert.rejects(installPretrainedModel(t.db, "mini"), /the shipped model was trained on other papers/);
    assert.equal(await t.db.build.count(), builds, "no build started");
  });
});
