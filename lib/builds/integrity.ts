/**
 * A complete build's files checked against its manifest (issue 28: a truncated graph.csr broke
 * every query, and `build --if-missing` skipped the broken build). Readers pick the newest build
 * that is intact; a damaged one is skipped with a warning naming the command that rebuilds it.
 *
 * Sizes are compared on every look (a stat per file); the sha256 of each file is computed once
 * per build and file state (size and modification time), so a served build is hashed when it is
 * first loaded and never again until a file of it changes.
 */
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, statSync } from "node:fs";
import path from "node:path";
import type { Db } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { dataRoot } from "@/lib/paths";
import { latestBuildWith } from "./build-dir";

/** The stages `graft build --stage` runs, each named in the rebuild advice. */
export type BuildStage = "graph" | "genret";

interface ManifestFile {
  path: string;
  bytes: number;
  sha256: string;
}

type BuildRow = NonNullable<Awaited<ReturnType<typeof latestBuildWith>>>;

/** The command that makes a new build of a stage (and so replaces a damaged one). */
export function rebuildCommand(stage: BuildStage, corpus: string): string {
  return `npm run graft -- build --stage ${stage} --corpus ${corpus}`;
}

/** No intact build of the stage is left: the message says which one is damaged, how, and the command to rebuild. */
export class DamagedBuildError extends CodedError {
  constructor(message: string) {
    super("not_ready", message);
    this.name = "DamagedBuildError";
  }
}

function manifestFiles(manifest: string): ManifestFile[] {
  try {
    const files = (JSON.parse(manifest) as { files?: unknown }).files;
    return Array.isArray(files) ? (files as ManifestFile[]).filter((f) => typeof f?.path === "string" && typeof f.bytes === "number") : [];
  } catch {
    return [];
  }
}

/**
 * A file's sha256, read synchronously in 1 MB chunks: 3-5 times faster than a read stream
 * (8-10 ms for the demo build's 4 MB graph.csr, against 25-90 ms), in bounded memory. Loading
 * a build reads its CSR synchronously anyway.
 */
function sha256Of(file: string): string {
  const hash = createHash("sha256");
  const buf = Buffer.allocUnsafe(1 << 20);
  const fd = openSync(file, "r");
  try {
    for (let n = readSync(fd, buf); n > 0; n = readSync(fd, buf)) hash.update(buf.subarray(0, n));
  } finally {
    closeSync(fd);
  }
  return hash.digest("hex");
}

/** Verdicts by build directory, valid while its files' sizes and modification times stay the same. */
const verdicts = new Map<string, { state: string; problem: string | null }>();

/**
 * What is wrong with a build's files, or null when each has the size and sha256 its manifest
 * recorded: "graph.csr is missing", "graph.csr is truncated (1000 of 4096 bytes)", …
 */
export async function buildDamage(dir: string, manifest: string): Promise<string | null> {
  const files = manifestFiles(manifest);
  const state: string[] = [];
  for (const f of files) {
    let st;
    try {
      st = statSync(path.join(dir, f.path));
    } catch {
      return `${f.path} is missing`;
    }
    if (st.size < f.bytes) return `${f.path} is truncated (${st.size} of ${f.bytes} bytes)`;
    if (st.size !== f.bytes) return `${f.path} has ${st.size} bytes, not the ${f.bytes} the manifest records`;
    state.push(`${f.path}:${st.size}:${st.mtimeMs}`);
  }
  const key = state.join("|");
  const known = verdicts.get(dir);
  if (known?.state === key) return known.problem;
  let problem: string | null = null;
  for (const f of files) {
    if (typeof f.sha256 === "string" && sha256Of(path.join(dir, f.path)) !== f.sha256) {
      problem = `${f.path} does not match the sha256 its manifest records (changed or corrupted since the build)`;
      break;
    }
  }
  verdicts.set(dir, { state: key, problem });
  return problem;
}

/** Damaged builds already reported, so a server warns once per build, not once per request. */
const warned = new Set<string>();

/**
 * The newest complete build of a corpus with `artefact` whose files are intact, or null when it
 * has none at all. Damaged newer builds are skipped (each reported once on stderr, with the
 * rebuild command); when every such build is damaged, DamagedBuildError says so.
 */
export async function newestIntactBuildWith(db: Db, corpus: string | number, artefact: string, stage: BuildStage): Promise<BuildRow | null> {
  const newest = await latestBuildWith(db, corpus, artefact);
  if (!newest) return null;
  const name = (await db.corpus.findUnique({ where: { id: newest.corpusId }, select: { name: true } }))?.name ?? String(corpus);
  const damaged: string[] = [];
  for (let build: BuildRow | null = newest; build; build = await olderBuild(db, build, artefact)) {
    const problem = await buildDamage(path.resolve(dataRoot(), build.dir), build.manifest);
    if (!problem) {
      if (damaged.length > 0) warnOnce(`${damaged.join("; ")}; serving build ${build.id} instead. Rebuild with: ${rebuildCommand(stage, name)}`);
      return build;
    }
    damaged.push(`build ${build.id} of corpus "${name}" is damaged: ${problem}`);
  }
  throw new DamagedBuildError(`${damaged.join("; ")}. No intact ${stage} build is left: rebuild it with \`${rebuildCommand(stage, name)}\``);
}

/** Whether the corpus has an intact complete build with `artefact` (`build --if-missing`: a damaged one counts as missing). */
export async function hasIntactBuildWith(db: Db, corpus: string, artefact: string, stage: BuildStage): Promise<boolean> {
  try {
    return (await newestIntactBuildWith(db, corpus, artefact, stage)) !== null;
  } catch (err) {
    if (err instanceof DamagedBuildError) return false;
    throw err;
  }
}

function olderBuild(db: Db, build: BuildRow, artefact: string): Promise<BuildRow | null> {
  return db.build.findFirst({
    where: { corpusId: build.corpusId, status: "complete", id: { lt: build.id }, artefacts: { some: { name: artefact } } },
    orderBy: { id: "desc" },
  });
}

function warnOnce(message: string): void {
  if (warned.has(message)) return;
  warned.add(message);
  console.warn(`[graft] ${message}`);
}
