import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { closeSync, cpSync, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { constants as zlib, gunzipSync, gzipSync } from "node:zlib";
import { after, before, describe, test } from "node:test";
import { config } from "@/lib/config";
import { sharedDataDir } from "@/lib/paths";
import { mulberry32 } from "@/lib/random";
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
//
// Under `npm test` the e2e set-up (scripts/test.sh) has just run the README's first recipes as
// written on a fresh store (migrate, the demo import, its graph build, the shipped generative
// retriever: half a minute of CPU). It hands over a copy of that store and the commands it ran
// (GRAFT_TEST_README_BASE); this file starts from the copy and does not run those again.

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
const MIGRATE = "npm run graft -- db migrate";
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

/** The command that runs for a README command (its cheaper form, if any); null: checked, not run. */
function runnable(cmd: string): string | null {
  const cheap = cheapFor(cmd);
  if (!cheap) return cmd;
  return cheap.instead ? cheap.instead(cmd) : null;
}

/**
 * The commands npm test's e2e set-up ran on the store it handed over (scripts/test.sh writes
 * ran.txt beside it), if they are what this file would run first: the same commands, in the
 * README's order. Anything else (no hand-over, another order, a README that changed): none.
 */
function handedOver(base: string | undefined, commands: readonly string[]): Set<string> {
  if (!base || !existsSync(path.join(base, "ran.txt"))) return new Set();
  const ran = readFileSync(path.join(base, "ran.txt"), "utf8").split("\n").filter(Boolean);
  let at = 0;
  for (const cmd of ran) {
    at = commands.indexOf(cmd, at) + 1;
    if (at === 0) return new Set();
  }
  return new Set(ran);
}

/** The first `n` lines of a gzipped file, decompressing only what they need (the dump is 25 MB of gzip). */
function gzipHead(file: string, n: number): string {
  for (let bytes = 1 << 20; ; bytes *= 4) {
    const fd = openSync(file, "r");
    const buf = Buffer.alloc(bytes);
    const read = readSync(fd, buf, 0, bytes, 0);
    closeSync(fd);
    // A truncated stream decompresses as far as it goes with a sync flush instead of failing.
    const lines = gunzipSync(buf.subarray(0, read), { finishFlush: zlib.Z_SYNC_FLUSH }).toString("utf8").split("\n");
    if (lines.length > n || read < bytes) return lines.slice(0, n).join("\n");
  }
}

function run(cmd: string, inEnv: NodeJS.ProcessEnv = env) {
  const r = spawnSync("bash", ["-c", cmd], { cwd: repoRoot, env: inEnv, encoding: "utf8", timeout: 15 * 60_000, maxBuffer: 64 * 1024 * 1024 });
  return { code: r.status, out: `${r.stdout}\n${r.stderr}`.trim() };
}

function expectSuccess(cmd: string, inEnv: NodeJS.ProcessEnv = env): void {
  const r = run(cmd, inEnv);
  assert.equal(r.code, 0, `\`${cmd}\` exited ${r.code}:\n${r.out.split("\n").slice(-25).join("\n")}`);
}

// The CSFCube recipes below run in the same store: it goes when the whole file is done.
after(() => rmSync(dir, { recursive: true, force: true }));

const examples = exampleCommands(README);
const hasData = existsSync(path.join(sharedDataDir(), "acl-citegraph")) && existsSync(ABSTRACTS);
const base = hasData ? config().GRAFT_TEST_README_BASE : undefined;
const alreadyRan = handedOver(base, [MIGRATE, ...examples.map(runnable).filter((c): c is string => c !== null)]);
/** Whether the store has been migrated (the CSFCube recipes run in the same one, after the examples). */
let migrated = false;

describe("the README's examples run as written", { concurrency: false, skip: hasData ? false : `no shared data under ${sharedDataDir()}` }, () => {
  before(async () => {
    if (alreadyRan.size > 0) {
      cpSync(base as string, dir, { recursive: true });
      rmSync(path.join(dir, "ran.txt"));
    } else {
      // What the Quick start does before these: migrate the store. Item vectors already embedded
      // under .graft are reused, as scripts/test.sh does (a fresh machine embeds them once).
      expectSuccess(MIGRATE);
      const vectors = path.join(repoRoot, ".graft", "vectors");
      if (existsSync(vectors)) cpSync(vectors, path.join(dir, "vectors"), { recursive: true });
    }
    migrated = true;
    writeFileSync(path.join(dir, "acl-anthology-abstracts.jsonl.gz"), gzipSync(gzipHead(ABSTRACTS, ABSTRACT_LINES)));
    writeFileSync(pdf, await onePaperPdf());
  });
  after(() => {
    // Leave the embedded vectors for the next run and the e2e set-up, as scripts/test.sh does.
    const vectors = path.join(repoRoot, ".graft", "vectors");
    if (!existsSync(vectors) && existsSync(path.join(dir, "vectors"))) cpSync(path.join(dir, "vectors"), vectors, { recursive: true });
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
    const form = runnable(cmd);
    const handed = form !== null && alreadyRan.has(form);
    const name = `${cmd}${cheap ? `  [${cheap.instead ? "cheaper form" : "checked, not run"}: ${cheap.reason}]` : ""}${
      handed ? "  [run as written by npm test's e2e set-up on a fresh store, whose copy this starts from]" : ""
    }`;
    test(name, () => {
      if (form === null) return cheap?.check?.(cmd);
      // The set-up lists a command only once it exited 0 (scripts/test.sh, readme_step).
      if (handed)
        assert.ok(
          readFileSync(path.join(base as string, "ran.txt"), "utf8")
            .split("\n")
            .includes(form),
          form,
        );
      else expectSuccess(form);
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

describe("the README's CSFCube recipes run as written, after the examples", { concurrency: false, skip: hasCsfcube ? false : "no CSFCube data" }, () => {
  // The examples' store and GRAFT_DATA_ROOT (set, as a user may have it), as a reader who ran
  // them goes on: the data step writes there and the import must read from there. A store of
  // its own cost one more migrate for nothing the recipes depend on.
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
    if (!migrated) expectSuccess(MIGRATE);
    for (const cmd of recipe.filter((c) => !slow.test(c))) expectSuccess(cmd);
    const evalRun = run("npm run eval:csfcube");
    assert.equal(evalRun.code, 1, evalRun.out);
    assert.match(evalRun.out, /corpus "csfcube-dev" has no graph build yet: run `npm run graft -- build --stage graph --corpus csfcube-dev`/);
    assert.doesNotMatch(evalRun.out, /\n\s+at /, "a one-line error, no stack trace");
  });
});

test("a hand-over counts only commands this file runs, in the README's order; the gzip head is the file's first lines", () => {
  const tmp = mkdtempSync(path.join(os.tmpdir(), "graft-readme-handover-"));
  try {
    const commands = ["migrate", "import", "search", "build"];
    assert.deepEqual(handedOver(undefined, commands), new Set());
    assert.deepEqual(handedOver(tmp, commands), new Set(), "no ran.txt");
    writeFileSync(path.join(tmp, "ran.txt"), "migrate\nimport\nbuild\n");
    assert.deepEqual(handedOver(tmp, commands), new Set(["migrate", "import", "build"]));
    writeFileSync(path.join(tmp, "ran.txt"), "migrate\nbuild\nimport\n");
    assert.deepEqual(handedOver(tmp, commands), new Set(), "another order");
    writeFileSync(path.join(tmp, "ran.txt"), "migrate\nimport --other\n");
    assert.deepEqual(handedOver(tmp, commands), new Set(), "a command this file does not run");
    // Hex digits of a fixed pseudo-random sequence: over 1 MiB gzipped, so the head is read from a truncated stream.
    const rand = mulberry32(7);
    const hex = () =>
      Math.floor(rand() * 2 ** 32)
        .toString(16)
        .padStart(8, "0");
    const lines = Array.from({ length: 30_000 }, (_, i) => `${i} ${Array.from({ length: 10 }, hex).join("")}`);
    const big = path.join(tmp, "big.jsonl.gz");
    writeFileSync(big, gzipSync(lines.join("\n")));
    assert.ok(readFileSync(big).length > 1 << 20);
    assert.equal(gzipHead(big, 400), lines.slice(0, 400).join("\n"));
    assert.equal(gzipHead(big, 29_000), lines.slice(0, 29_000).join("\n"), "past the first MiB");
    assert.equal(gzipHead(big, 40_000), lines.join("\n"), "fewer lines than asked: all of them");
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
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
