import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { gunzipSync, gzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { sharedDataDir } from "@/lib/paths";
import { repoRoot } from "@/lib/paths";
import { onePaperPdf } from "@/lib/input/test-pdfs";
import { evalOptions } from "./commands/eval";
import { parseOptions } from "./output";

// The README's examples as a new user runs them: every `npm run graft -- …` line of its
// "Examples" code block, through npm and a shell, in order, against a fresh SQLite store in a
// temporary folder (DATABASE_URL=file:<tmp>/graft.db, GRAFT_DATA_ROOT=<tmp>); a non-zero exit
// fails. So do the complete commands the README's prose tells people to run. What cannot run
// here as written is in CHEAP below: run in a cheaper form of the same command, or checked
// without running, each with its reason.

const README = readFileSync(path.join(repoRoot, "README.md"), "utf8");

/** The `npm run graft -- …` lines of the code block(s) after an "Examples" line or heading. */
export function exampleCommands(markdown: string): string[] {
  const out: string[] = [];
  const blocks = markdown.matchAll(/^(?:#+\s*)?Examples\b[^\n]*\n+```[a-z]*\n([\s\S]*?)\n```/gim);
  for (const [, body] of blocks) {
    for (const line of body.split("\n")) {
      const cmd = line.replace(/\s+#.*$/, "").trim();
      if (cmd.startsWith("npm run graft -- ")) out.push(cmd);
    }
  }
  return out;
}

/** Complete `npm run graft -- …` commands in the prose (inline code without placeholders). */
export function proseCommands(markdown: string): string[] {
  const prose = markdown.replace(/```[\s\S]*?```/g, "");
  const out: string[] = [];
  for (const [, code] of prose.matchAll(/`(npm run graft -- [^`]+)`/g)) {
    const cmd = code.replace(/\s+/g, " ").trim();
    if (!/[<>[\]|…]/.test(cmd) && !out.includes(cmd)) out.push(cmd);
  }
  return out;
}

/** The commands of the bash blocks in a section (its heading up to the next heading), comments dropped. */
export function sectionCommands(markdown: string, heading: string): string[] {
  const start = markdown.search(new RegExp(`^#+\\s*${heading.replace(/[()[\]]/g, "\\$&")}\\s*$`, "m"));
  if (start < 0) return [];
  const rest = markdown.slice(start).split("\n").slice(1).join("\n");
  const section = rest.slice(0, rest.search(/^#+\s/m) >= 0 ? rest.search(/^#+\s/m) : undefined);
  const out: string[] = [];
  for (const [, body] of section.matchAll(/```bash\n([\s\S]*?)\n```/g))
    for (const line of body.split("\n")) {
      const cmd = line.replace(/\s+#.*$/, "").trim();
      if (cmd !== "") out.push(cmd);
    }
  return out;
}

const dir = mkdtempSync(path.join(os.tmpdir(), "graft-readme-"));
const env: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: `file:${path.join(dir, "graft.db")}`,
  GRAFT_DATA_ROOT: dir,
  // bcrypt at its cheapest: `user add` is checked for its flags, not for the hash's cost.
  GRAFT_BCRYPT_ROUNDS: "4",
  CI: "1",
};
delete env.GRAFT_USER_PASSWORD;
const ABSTRACTS = path.join(sharedDataDir(), "acl-anthology-abstracts.jsonl.gz");
const ABSTRACT_LINES = 400;
const pdf = path.join(dir, "paper.pdf");

interface Cheap {
  /** The README command this applies to. */
  match: RegExp;
  /** The command to run instead, or null: check it without running (`check`). */
  instead: ((cmd: string) => string) | null;
  check?: (cmd: string) => void;
  reason: string;
}

/** The short, justified list of examples that do not run here exactly as written. */
const CHEAP: Cheap[] = [
  {
    match: /acl-anthology-abstracts\.jsonl\.gz/,
    instead: (cmd) => cmd.replace(/\S*acl-anthology-abstracts\.jsonl\.gz/, path.join(dir, "acl-anthology-abstracts.jsonl.gz")),
    reason: `the 63,931-line dump takes minutes to import; its first ${ABSTRACT_LINES} lines (invalid ones among them) take the same path`,
  },
  {
    match: /build --stage genret(?!.*--pretrained)/,
    instead: (cmd) => `${cmd.replace(/\s--(train-minutes|epochs|d-model|layers|heads|ff|batch|lr|variant|device)\s+\S+/g, "")} --pretrained`,
    reason:
      "training runs for 20 minutes and needs PyTorch; the shipped trained model goes through the same build stage (--pretrained), so the graft retriever below has a model",
  },
  {
    match: /--file paper\.pdf/,
    instead: (cmd) => cmd.replace("paper.pdf", pdf),
    reason: "paper.pdf stands for the reader's own PDF; a one-paper PDF made by lib/input/test-pdfs.ts takes its place",
  },
  {
    match: /^npm run graft -- eval /,
    instead: null,
    check: (cmd) => {
      const argv = cmd.replace(/^npm run graft -- eval\s*/, "").split(/\s+/);
      const raw: Record<string, string | boolean> = {};
      for (let i = 0; i < argv.length; i++) {
        const flag = argv[i].replace(/^--/, "").replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());
        if (argv[i + 1] && !argv[i + 1].startsWith("--")) raw[flag] = argv[++i];
        else raw[flag] = true;
      }
      const opts = parseOptions(evalOptions, raw);
      if (opts.generative) assert.ok(existsSync(path.join(repoRoot, opts.generative)), `--generative ${opts.generative} exists`);
    },
    reason:
      "the full evaluation takes hours on 2 cores and even its --smoke form minutes (lib/eval/harness.smoke.test.ts runs it); its flags are parsed and the --generative module must exist",
  },
];

function cheapFor(cmd: string): Cheap | undefined {
  return CHEAP.find((c) => c.match.test(cmd));
}

function run(cmd: string, inEnv: NodeJS.ProcessEnv = env) {
  const r = spawnSync("bash", ["-c", cmd], { cwd: repoRoot, env: inEnv, encoding: "utf8", timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}`.trim() };
}

function expectSuccess(cmd: string, inEnv: NodeJS.ProcessEnv = env): void {
  const r = run(cmd, inEnv);
  assert.equal(r.code, 0, `\`${cmd}\` exited ${r.code}:\n${r.out.split("\n").slice(-25).join("\n")}`);
}

const examples = exampleCommands(README);
const hasData = existsSync(path.join(sharedDataDir(), "acl-citegraph")) && existsSync(ABSTRACTS);

describe("the README's examples run as written", { concurrency: false, skip: hasData ? false : `no shared data under ${sharedDataDir()}` }, () => {
  before(async () => {
    // What the Quick start does before these: migrate the store. Item vectors already embedded
    // under .graft are reused, as scripts/test.sh does (a fresh machine embeds them once).
    expectSuccess("npm run graft -- db migrate");
    const vectors = path.join(repoRoot, ".graft", "vectors");
    if (existsSync(vectors)) cpSync(vectors, path.join(dir, "vectors"), { recursive: true });
    const head = gunzipSync(readFileSync(ABSTRACTS)).toString("utf8").split("\n").slice(0, ABSTRACT_LINES).join("\n");
    writeFileSync(path.join(dir, "acl-anthology-abstracts.jsonl.gz"), gzipSync(head));
    writeFileSync(pdf, await onePaperPdf());
  });
  after(() => {
    // Leave the embedded vectors for the next run and the e2e set-up, as scripts/test.sh does.
    const vectors = path.join(repoRoot, ".graft", "vectors");
    if (!existsSync(vectors) && existsSync(path.join(dir, "vectors"))) cpSync(path.join(dir, "vectors"), vectors, { recursive: true });
    rmSync(dir, { recursive: true, force: true });
  });

  test("the README has an Examples block, and the exceptions below all apply to it", () => {
    assert.ok(examples.length >= 5, `examples found: ${examples.join("; ")}`);
    for (const c of CHEAP)
      assert.ok(
        examples.some((e) => c.match.test(e)),
        `${c.match} matches no example any more: drop it`,
      );
  });

  for (const cmd of examples) {
    const cheap = cheapFor(cmd);
    const name = cheap ? `${cmd}  [${cheap.instead ? "cheaper form" : "checked, not run"}: ${cheap.reason}]` : cmd;
    test(name, () => {
      if (cheap && !cheap.instead) return cheap.check?.(cmd);
      expectSuccess(cheap?.instead ? cheap.instead(cmd) : cmd);
    });
  }

  test("the complete commands in the README's prose run too (the first admin among them)", () => {
    const prose = proseCommands(README);
    assert.ok(
      prose.some((c) => c.includes("user add")),
      `the prose says how to create the first admin: ${prose.join("; ")}`,
    );
    // A command the examples already ran is not run twice (a second `user add` of one email is refused).
    for (const cmd of prose.filter((c) => !examples.includes(c))) {
      // The same exceptions as the examples: a command checked, not run, is checked here too.
      const cheap = cheapFor(cmd);
      if (cheap && !cheap.instead) cheap.check?.(cmd);
      else expectSuccess(cheap?.instead ? cheap.instead(cmd) : cmd);
    }
  });
});

const CSFCUBE = "Related through one facet (CSFCube)";
const hasCsfcube = existsSync(path.join(sharedDataDir(), "csfcube-dev", "dev-pid2anns-method.json"));

describe("the README's CSFCube recipes run as written from a fresh data root", { concurrency: false, skip: hasCsfcube ? false : "no CSFCube data" }, () => {
  // Its own store and GRAFT_DATA_ROOT (set, as a user may have it): the data step writes there
  // and the import must read from there.
  const root = mkdtempSync(path.join(os.tmpdir(), "graft-readme-csfcube-"));
  const fresh: NodeJS.ProcessEnv = { ...env, DATABASE_URL: `file:${path.join(root, "graft.db")}`, GRAFT_DATA_ROOT: root };
  after(() => rmSync(root, { recursive: true, force: true }));
  const recipe = sectionCommands(README, CSFCUBE);
  // The graph builds (28k sentences: under a minute each with the text encoder the recipe names,
  // the offline corpus's extraction first) and the evaluation that reads them are left to the
  // recipe's user, to keep npm test short: without them, the evaluation must stop naming the build.
  const slow = /build --stage graph|eval:csfcube/;

  test("the section holds both recipes", () => {
    assert.ok(recipe.filter((c) => c.startsWith("npm run data:csfcube")).length >= 2, recipe.join("; "));
    assert.ok(
      recipe.some((c) => c.includes("build --stage graph --corpus csfcube-dev-offline")),
      "the offline corpus's graph build is in the recipe",
    );
  });

  test("data, import and extract steps (graph builds and the evaluation: not run)", () => {
    expectSuccess("npm run graft -- db migrate", fresh);
    for (const cmd of recipe.filter((c) => !slow.test(c))) expectSuccess(cmd, fresh);
    const evalRun = run("npm run eval:csfcube", fresh);
    assert.equal(evalRun.code, 1, evalRun.out);
    assert.match(evalRun.out, /corpus "csfcube-dev" has no graph build yet: run `npm run graft -- build --stage graph --corpus csfcube-dev`/);
    assert.doesNotMatch(evalRun.out, /\n\s+at /, "a one-line error, no stack trace");
  });
});

test("extraction: Examples blocks only, comments dropped; prose commands without placeholders", () => {
  const md = [
    "Intro `npm run graft -- user add --admin`.",
    "Examples (run by a test):",
    "",
    "```bash",
    "npm run graft -- import   # the demo",
    "echo not this",
    "npm run graft -- papers search x --json",
    "```",
    "",
    "```bash",
    "npm run graft -- not-an-example",
    "```",
    "See `npm run graft -- jobs enqueue",
    "--stage graph` and `npm run graft -- query --paper-id <id>`.",
  ].join("\n");
  assert.deepEqual(exampleCommands(md), ["npm run graft -- import", "npm run graft -- papers search x --json"]);
  assert.deepEqual(proseCommands(md), ["npm run graft -- user add --admin", "npm run graft -- jobs enqueue --stage graph"]);
  const sections = ["## A (one)", "```bash", "a1   # first", "", "a2", "```", "### B", "```bash", "b1", "```"].join("\n");
  assert.deepEqual(sectionCommands(sections, "A (one)"), ["a1", "a2"]);
  assert.deepEqual(sectionCommands(sections, "B"), ["b1"]);
});
