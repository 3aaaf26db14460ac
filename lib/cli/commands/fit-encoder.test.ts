import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { gzipSync } from "node:zlib";
import { createEmbedder } from "@/lib/embed/registry";
import { dot } from "@/lib/embed/types";
import { registerFitEncoder } from "./fit-encoder";
import { runGraft } from "@/lib/cli/testing";

// `graft fit-encoder` in process on a small gzipped JSONL corpus: the summary, and the folder
// it writes is a working `lsa:<folder>` embedder.

const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-fit-encoder-"));
after(() => rmSync(tmp, { recursive: true, force: true }));

const graft = async (...argv: string[]): Promise<string> => (await runGraft(registerFitEncoder, argv)).out;

test("fit-encoder fits on title + abstract of a JSONL.gz and writes a model lsa:<folder> loads", async () => {
  const topics = ["parser treebank grammar dependency tree", "speech audio acoustic pitch prosody", "translation bilingual decoder alignment"];
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    const words = topics[i % 3].split(" ");
    lines.push(
      JSON.stringify({ id: `p${i}`, title: `${words[i % 5]} study`, abstract: `${words[(i + 1) % 5]} ${words[(i + 2) % 5]} ${words[(i + 3) % 5]} results` }),
    );
  }
  lines.push("not json", JSON.stringify({ id: "empty", title: "", abstract: null }));
  const input = path.join(tmp, "corpus.jsonl.gz");
  writeFileSync(input, gzipSync(`${lines.join("\n")}\n`));
  const out = path.join(tmp, "model");
  const summary = JSON.parse(await graft("fit-encoder", "--input", input, "--out", out, "--dims", "3", "--min-df", "1", "--json"));
  assert.equal(summary.documents, 30);
  assert.equal(summary.skipped, 2);
  assert.equal(summary.dims, 3);
  assert.equal(summary.folder, path.resolve(out));
  assert.equal(summary.projectionBytes, summary.vocabulary * 3 * 4);

  const e = await createEmbedder(summary.spec);
  assert.equal(e.id, `${summary.spec};fp=${summary.fingerprint}`);
  const [a, b, c] = await e.embed(["treebank grammar", "dependency parser tree", "acoustic pitch"]);
  assert.ok(dot(a, b) > dot(a, c), `same topic ${dot(a, b)} vs ${dot(a, c)}`);
});

test("fit-encoder refuses a missing input file", async () => {
  await assert.rejects(graft("fit-encoder", "--input", path.join(tmp, "absent.jsonl"), "--out", path.join(tmp, "m2")), /no such file/);
});
