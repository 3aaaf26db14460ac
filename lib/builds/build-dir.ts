import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { writeFileAtomic } from "@/lib/atomic-write";
import type { Db } from "@/lib/db";
import { dataRoot } from "@/lib/paths";

// Versioned builds: each lives in <data root>/<corpus>/build-<id>/ beside its manifest.json.
// A build is complete only once the manifest is written (temp file + rename, written last)
// and its Build row is marked complete, so a reader never sees half a build.
//
// Builds are resumable: a job that created one records it (startBuild's `jobId`, in the same
// transaction as the row), and after a crash the job reopens it (resumeBuild) and writes the
// same files and rows again. Every write here is therefore idempotent: files are replaced by
// rename, and completeBuild replaces the build's artefact rows instead of adding to them.

export interface ArtefactInfo {
  stage: string;
  name: string;
  /** Relative to the build directory. */
  path: string;
  bytes: number;
  sha256: string;
  meta: Record<string, unknown>;
}

export interface BuildHandle {
  id: number;
  corpusId: number;
  corpus: string;
  /** Absolute directory. */
  dir: string;
  artefacts: ArtefactInfo[];
}

export function buildDirFor(corpus: string, id: number, root = dataRoot()): string {
  return path.join(root, corpus, `build-${id}`);
}

export interface StartBuildOptions {
  /** The job that builds it: linked in the same transaction, so a crash can never leave a build no job knows about. */
  jobId?: number;
}

export async function startBuild(db: Db, corpus: string, params: Record<string, unknown>, options: StartBuildOptions = {}): Promise<BuildHandle> {
  const c = await db.corpus.findUnique({ where: { name: corpus } });
  if (!c) throw new Error(`no corpus named "${corpus}" (import it first: graft import <path> --corpus ${corpus})`);
  const id = await db.$transaction(async (tx) => {
    const row = await tx.build.create({ data: { corpusId: c.id, dir: "", status: "running", params: JSON.stringify(params) } });
    await tx.build.update({ where: { id: row.id }, data: { dir: path.relative(dataRoot(), buildDirFor(corpus, row.id)) } });
    if (options.jobId !== undefined) await tx.job.update({ where: { id: options.jobId }, data: { buildId: row.id } });
    return row.id;
  });
  const dir = buildDirFor(corpus, id);
  mkdirSync(dir, { recursive: true });
  return { id, corpusId: c.id, corpus, dir, artefacts: [] };
}

export interface ResumedBuild {
  handle: BuildHandle;
  /** "complete" when the build finished before its job could record it: nothing is left to do. */
  status: string;
  params: Record<string, unknown>;
  manifest: Record<string, unknown>;
}

/** Temp files of interrupted atomic writes (`x.tmp`, `x.tmp-<pid>`, `x.<pid>.tmp`). */
const TEMP_FILE = /\.tmp(-\d+)?$|\.\d+\.tmp$/;

/**
 * Reopens a build for its job after a crash: marks it running again (unless it is complete),
 * removes the temp files an interrupted write left, and returns a handle with no artefacts
 * recorded yet: the stage writes (and records) them again.
 */
export async function resumeBuild(db: Db, id: number): Promise<ResumedBuild> {
  const row = await db.build.findUnique({ where: { id }, include: { corpus: { select: { name: true } } } });
  if (!row) throw new Error(`build ${id} does not exist (was it deleted?)`);
  const dir = path.resolve(dataRoot(), row.dir || path.relative(dataRoot(), buildDirFor(row.corpus.name, id)));
  mkdirSync(dir, { recursive: true });
  if (row.status !== "complete") {
    for (const f of readdirSync(dir)) if (TEMP_FILE.test(f)) rmSync(path.join(dir, f), { force: true });
    await db.build.update({ where: { id }, data: { status: "running", completedAt: null } });
  }
  return {
    handle: { id, corpusId: row.corpusId, corpus: row.corpus.name, dir, artefacts: [] },
    status: row.status,
    params: JSON.parse(row.params) as Record<string, unknown>,
    manifest: JSON.parse(row.manifest) as Record<string, unknown>,
  };
}

/**
 * The corpus's newest unfinished build ("running": its process was killed; or "failed") with
 * exactly these parameters, reopened by resumeBuild, or null: a stage run again with the same
 * settings continues it. `withoutJob`: only a build no job owns (a job's build is its job's to resume).
 */
export async function reopenUnfinishedBuild(
  db: Db,
  corpus: string,
  params: Record<string, unknown>,
  options: { withoutJob?: boolean } = {},
): Promise<ResumedBuild | null> {
  const rows = await db.build.findMany({
    where: { corpus: { name: corpus }, status: { in: ["running", "failed"] }, ...(options.withoutJob ? { jobs: { none: {} } } : {}) },
    orderBy: { id: "desc" },
    select: { id: true, params: true },
  });
  const wanted = JSON.stringify(params);
  const same = rows.find((b) => JSON.stringify(JSON.parse(b.params)) === wanted);
  return same ? resumeBuild(db, same.id) : null;
}

/** Writes a file of the build atomically and records it for the manifest (again, on a re-run: the newer record wins). */
export function writeArtefact(
  build: BuildHandle,
  stage: string,
  name: string,
  file: string,
  data: string | Uint8Array,
  meta: Record<string, unknown> = {},
): ArtefactInfo {
  const abs = path.join(build.dir, file);
  writeFileAtomic(abs, data);
  return recordArtefact(build, stage, name, file, meta);
}

/** Records a file already written (atomically) into the build directory. */
export function recordArtefact(build: BuildHandle, stage: string, name: string, file: string, meta: Record<string, unknown> = {}): ArtefactInfo {
  const abs = path.join(build.dir, file);
  const info: ArtefactInfo = {
    stage,
    name,
    path: file,
    bytes: statSync(abs).size,
    sha256: createHash("sha256").update(readFileSync(abs)).digest("hex"),
    meta,
  };
  build.artefacts = build.artefacts.filter((a) => a.name !== name);
  build.artefacts.push(info);
  return info;
}

/** Writes manifest.json last and marks the build complete in the store. */
export async function completeBuild(db: Db, build: BuildHandle, manifest: Record<string, unknown>): Promise<void> {
  const full = { build: build.id, corpus: build.corpus, createdAt: new Date().toISOString(), ...manifest, files: build.artefacts };
  const file = path.join(build.dir, "manifest.json");
  writeFileAtomic(file, `${JSON.stringify(full, null, 2)}\n`);
  // The rows are replaced, not added to: completing a build twice (a crash between the commit
  // below and the job's own completion, then a re-run) must not duplicate them.
  await db.$transaction([
    db.artefact.deleteMany({ where: { buildId: build.id } }),
    db.artefact.createMany({
      data: build.artefacts.map((a) => ({
        buildId: build.id,
        stage: a.stage,
        name: a.name,
        path: a.path,
        bytes: a.bytes,
        sha256: a.sha256,
        meta: JSON.stringify(a.meta),
      })),
    }),
    db.build.update({ where: { id: build.id }, data: { status: "complete", manifest: JSON.stringify(full), completedAt: new Date() } }),
  ]);
}

export async function failBuild(db: Db, build: BuildHandle, error: unknown): Promise<void> {
  const message = error instanceof Error ? error.message : String(error);
  await db.build.update({ where: { id: build.id }, data: { status: "failed", manifest: JSON.stringify({ error: message }) } });
}

/**
 * The newest complete build of a corpus (by name or id) that has a given artefact: the one
 * rule by which every reader (serving, paper pages) picks the build to use.
 */
export async function latestBuildWith(db: Db, corpus: string | number, artefactName: string) {
  return db.build.findFirst({
    where: {
      ...(typeof corpus === "number" ? { corpusId: corpus } : { corpus: { name: corpus } }),
      status: "complete",
      artefacts: { some: { name: artefactName } },
    },
    orderBy: { id: "desc" },
  });
}
