import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { Command } from "commander";
import { disconnectDb } from "@/lib/db/client";
import { testProvider } from "@/lib/db/testing";
import { useMiniCorpusStore } from "@/lib/graph/testing";
import { UsageError } from "../output";
import { registerBuild } from "./build";

// `graft build --stage graph --similarity …` in process against the six-paper store: the flag
// is validated, recorded in the build and reported; leaving it out builds the default mix.

async function graft(...argv: string[]): Promise<string> {
  const program = new Command("graft").exitOverride();
  registerBuild(program);
  let out = "";
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: unknown[]) => {
    if (typeof chunk !== "string") return (write as (c: Uint8Array, ...r: unknown[]) => boolean)(chunk, ...rest);
    out += chunk;
    return true;
  }) as typeof process.stdout.write;
  try {
    await program.parseAsync(argv, { from: "user" });
    return out;
  } finally {
    process.stdout.write = write;
  }
}

describe(`graft build --stage graph --similarity (${testProvider})`, { concurrency: false }, () => {
  const t = useMiniCorpusStore("graft-build-cli-");
  const saved = { url: process.env.DATABASE_URL, progress: process.env.GRAFT_PROGRESS };
  before(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = t.databaseUrl;
    process.env.GRAFT_PROGRESS = "off";
  });
  after(async () => {
    await disconnectDb();
    process.env.DATABASE_URL = saved.url;
    process.env.GRAFT_PROGRESS = saved.progress;
  });

  test("a similarity that is neither cosine nor mix[:λ in 0..1] is a usage error", async () => {
    for (const bad of ["mix:2", "bm25"]) {
      await assert.rejects(
        graft("build", "--stage", "graph", "--corpus", "mini", "--similarity", bad),
        (e: Error) => e instanceof UsageError && /--similarity: similarity must be/.test(e.message),
        bad,
      );
    }
  });

  test("cosine keeps the paper's graph (α 0.75); the default mixes in the lexical score (α 0.25)", async () => {
    const cosine = JSON.parse(await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--similarity", "cosine", "--json"));
    assert.equal(cosine.similarity, "cosine");
    const mixed = JSON.parse(await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--json"));
    assert.equal(mixed.similarity, "mix:0.5");
    const lambda = JSON.parse(
      await graft("build", "--stage", "graph", "--corpus", "mini", "--k", "2", "--workers", "1", "--similarity", "mix:0.3", "--alpha", "0.5", "--json"),
    );
    assert.equal(lambda.similarity, "mix:0.3");
    const params = (id: number) => t.db.build.findUniqueOrThrow({ where: { id } }).then((b) => JSON.parse(b.params));
    assert.deepEqual(await params(cosine.build).then((p) => [p.similarity, p.alpha, p.beta]), ["cosine", 0.75, 0.25]);
    assert.deepEqual(await params(mixed.build).then((p) => [p.similarity, p.alpha, p.beta]), ["mix:0.5", 0.25, 0.75]);
    assert.deepEqual(await params(lambda.build).then((p) => [p.similarity, p.alpha, p.beta]), ["mix:0.3", 0.5, 0.5]);
  });
});
