/**
 * The report's manifest: how a run was made (command, commit, machine, time and CPU used), the
 * corpus and settings it ran with, so a figure can be traced to what produced it.
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import os from "node:os";
import type { CorpusData } from "@/lib/graph/corpus-data";
import { repoRoot } from "@/lib/paths";
import type { Manifest, UserPapersSection } from "../report";
import { EVAL_K, NEAREST, NON_OBVIOUS_K, PER_ITEM, TOP_N } from "./constants";

/** When and under what load a run started; the manifest measures from it. */
export interface RunClock {
  date: string;
  started: number;
  cpuAtStart: NodeJS.CpuUsage;
  loadAtStart: number;
}

export function startClock(): RunClock {
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  const loadAtStart = os.loadavg()[0];
  return { date: new Date().toISOString(), started, cpuAtStart, loadAtStart };
}

function gitState(): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync("git", ["rev-parse", "HEAD"], { cwd: repoRoot, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    const status = execFileSync("git", ["status", "--porcelain", "--untracked-files=no"], {
      cwd: repoRoot,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    return { commit, dirty: status.trim().length > 0 };
  } catch {
    return { commit: null, dirty: null };
  }
}

function sha256(file: string | null): string | null {
  if (!file) return null;
  try {
    return createHash("sha256").update(readFileSync(file)).digest("hex");
  } catch {
    return null;
  }
}

/** The run itself: command, timing, commit and machine. */
function runManifest(command: string | undefined, clock: RunClock) {
  return {
    command: command ?? "runEvaluation()",
    date: clock.date,
    wallSeconds: (performance.now() - clock.started) / 1000,
    // CPU seconds of this process (embedding workers not included) and the machine's 1-minute
    // load average at start and end: wall time on a shared machine says little on its own.
    cpuSeconds: (() => {
      const u = process.cpuUsage(clock.cpuAtStart);
      return (u.user + u.system) / 1e6;
    })(),
    loadAverage: { start: clock.loadAtStart, end: os.loadavg()[0] },
    git: gitState(),
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.availableParallelism?.() ?? os.cpus().length,
  };
}

/** Manifest of a run of the user-paper tables alone: the store's graph build stands for the corpus settings. */
export function userPapersManifest(args: {
  command: string | undefined;
  clock: RunClock;
  corpusDir: string;
  storeCorpus: string;
  userPapers: UserPapersSection | undefined;
  bootstrap: { resamples: number; seed: number };
  sectionSeconds: Record<string, number>;
}): Manifest {
  const { userPapers } = args;
  return {
    ...runManifest(args.command, args.clock),
    corpus: {
      dir: args.corpusDir,
      name: args.storeCorpus,
      userPapers: Object.fromEntries(
        (userPapers?.tables ?? []).map((t) => [t.id, { queries: t.queries, goldPairs: t.goldPairs, ...(t.tuning ? { tuning: t.tuning } : {}) }]),
      ),
    },
    embedder: String((userPapers?.settings.build as { embedder?: string } | undefined)?.embedder ?? "the graph build's"),
    graph: { ...((userPapers?.settings.build as Record<string, unknown> | undefined) ?? {}) },
    retrieval: { relatedPapers: { k: userPapers?.k ?? 50 } },
    bootstrap: { ...args.bootstrap, level: 0.95 },
    generative: { provider: "the served retrievers (the store's builds)" },
    sectionSeconds: args.sectionSeconds,
  };
}

/** Manifest of a run of the corpus tables: corpus files and sizes, the graph, retrieval and bootstrap settings. */
export function corpusTablesManifest(args: {
  command: string | undefined;
  clock: RunClock;
  corpusDir: string;
  data: CorpusData;
  splitOf: (split: string) => number[];
  queriesUsed: { test: number; dev: number; ooc: number };
  mainAlpha: number;
  bootstrap: { resamples: number; seed: number };
  generative: Record<string, unknown>;
  sectionSeconds: Record<string, number>;
}): Manifest {
  const { data, splitOf, mainAlpha } = args;
  const oocPairs = data.queries.gold.reduce((s, g) => s + g.length, 0);
  return {
    ...runManifest(args.command, args.clock),
    corpus: {
      dir: args.corpusDir,
      name: data.name,
      papers: data.ids.length,
      splits: { test: splitOf("test").length, dev: splitOf("dev").length, train: splitOf("train").length },
      oocQueries: data.queries.ids.length,
      oocGoldPairs: oocPairs,
      queriesUsed: args.queriesUsed,
      sha256: {
        papers: sha256(data.files.papers),
        citations: sha256(data.files.citations),
        queries: sha256(data.files.queries),
        queryGold: sha256(data.files.queryGold),
      },
    },
    embedder: data.embedderId,
    graph: { k: EVAL_K, alpha: mainAlpha, beta: 1 - mainAlpha, gold: "the query's own out-neighbours (its rows, all facets)" },
    retrieval: {
      topN: TOP_N,
      walk: { hops: 2, cap: 500, combine: "max" },
      rrfK: 60,
      denseItemsPerItem: PER_ITEM,
      nonObvious: { nearest: NEAREST, k: NON_OBVIOUS_K },
    },
    bootstrap: { ...args.bootstrap, level: 0.95 },
    generative: args.generative,
    sectionSeconds: args.sectionSeconds,
    newlyEmbedded: data.newlyEmbedded,
  };
}
