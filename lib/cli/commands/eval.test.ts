import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "commander";
import { UsageError, parseOptions } from "../output";
import { evalOptions, registerEval, suitesOf, summarise } from "./eval";

test("eval options: defaults, suites, --only parts, bad values as usage errors", () => {
  const d = parseOptions(evalOptions, {});
  assert.equal(d.suite, "all");
  assert.equal(d.smoke, false);
  assert.equal(d.distillCoverage, true);
  assert.equal(d.only, undefined);
  assert.deepEqual(suitesOf("all"), ["main", "ooc", "ablations", "user-papers"]);
  assert.deepEqual(suitesOf("user-papers"), ["user-papers"]);
  assert.deepEqual(parseOptions(evalOptions, { only: "userPapers" }).only, ["userPapers"]);
  assert.equal(parseOptions(evalOptions, { limitUserPapers: "5" }).limitUserPapers, 5);
  assert.deepEqual(suitesOf("ooc"), ["ooc"]);
  assert.deepEqual(parseOptions(evalOptions, { only: "kMin, alpha" }).only, ["kMin", "alpha"]);
  assert.equal(parseOptions(evalOptions, { limitTest: "40" }).limitTest, 40);
  assert.equal(parseOptions(evalOptions, { trec: "runs/trec" }).trec, "runs/trec");
  assert.throws(() => parseOptions(evalOptions, { trec: "" }), /--trec/);
  assert.throws(
    () => parseOptions(evalOptions, { suite: "everything" }),
    (e: unknown) => e instanceof UsageError && /--suite: suite must be one of: main, ooc, ablations, user-papers, all/.test(e.message),
  );
  assert.throws(() => parseOptions(evalOptions, { only: "kMin,bogus" }), /--only: unknown part\(s\) bogus/);
  assert.throws(() => parseOptions(evalOptions, { limitTest: "0" }), /--limit-test/);
});

test("the command registers with its flags", () => {
  const program = new Command("graft");
  registerEval(program);
  const cmd = program.commands.find((c) => c.name() === "eval");
  assert.ok(cmd);
  for (const flag of [
    "--suite",
    "--smoke",
    "--only",
    "--generative",
    "--limit-test",
    "--limit-user-papers",
    "--runs-cache",
    "--trec",
    "--render",
    "--no-distill-coverage",
    "--json",
  ])
    assert.ok(
      cmd.options.some((o) => o.long === flag),
      flag,
    );
});

test("summary lists every table row and the headline attribution", () => {
  const text = summarise({
    version: 1,
    kind: "full",
    suites: ["main"],
    date: "d",
    tables: {
      main: [
        { method: "bm25", label: "BM25", status: "ok", "R@20": 0.25, "R@50": 0.5 },
        { method: "graft", label: "Graft", status: "not run", reason: "x" },
      ],
    },
    attribution: {
      precision: 0.9,
      subsetShare: 0.8,
      pairs: 10,
      perFacet: {},
      lists: "dense-items",
      fusion: "rrf",
      reference: "",
      rows: [],
      paper: { precision: 0.922, subsetShare: 0.899, perFacet: {} },
    },
    manifest: {} as never,
  });
  assert.match(text, /BM25 .*0\.250 +0\.500 +ok/);
  assert.match(text, /Graft .* not run/);
  assert.match(text, /attribution precision 0\.900 \(rrf over dense-items, 10 pairs\)/);
});
