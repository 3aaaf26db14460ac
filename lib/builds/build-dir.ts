import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Db } from "@/lib/db/client";
import { dataRoot } from "@/lib/db/config";

// Versioned builds: each lives in <data root>/<corpus>/build-<id>/ beside its manifest.json.
// A build is complete only once the manifest is written (temp file + rename, written last)
// and its Build row is marked complete, so a reader never sees half a build.

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

export async function startBuild(db: Db, corpus: string, params: Record<string, unknown>): Promise<BuildHandle> {
  const c = await db.corpus.findUnique({ where: { name: corpus } });
  if (!c) throw new Error(`no corpus named "${corpus}" (import it first: graft import <path> --corpus ${corpus})`);
  const row = await db.build.create({ data: { corpusId: c.id, dir: "", status: "running", params: JSON.stringify(params) } });
  const dir = buildDirFor(corpus, row.id);
  mkdirSync(dir, { recursive: true });
  await db.build.update({ where: { id: row.id }, data: { dir: path.relative(dataRoot(), dir) } });
  return { id: row.id, corpusId: c.id, corpus, dir, artefacts: [] };
}

/** Writes a file of the build atomically and records it for the manifest. */
export function writeArtefact(build: BuildHandle, stage: string, name: string, file: string, data: string | Uint8Array, meta: Record<string, unknown> = {}): ArtefactInfo {
  const abs = path.join(build.dir, file);
  const tmp = `${abs}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  renameSync(tmp, abs);
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
  build.artefacts.push(info);
  return info;
}

/** Writes manifest.json last and marks the build complete in the store. */
export async function completeBuild(db: Db, build: BuildHandle, manifest: Record<string, unknown>): Promise<void> {
  const full = { build: build.id, corpus: build.corpus, createdAt: new Date().toISOString(), ...manifest, files: build.artefacts };
  const file = path.join(build.dir, "manifest.json");
  writeFileSync(`${file}.tmp`, `${JSON.stringify(full, null, 2)}\n`);
  renameSync(`${file}.tmp`, file);
  await db.$transaction([
    db.artefact.createMany({
      data: build.artefacts.map((a) => ({ buildId: build.id, stage: a.stage, name: a.name, path: a.path, bytes: a.bytes, sha256: a.sha256, meta: JSON.stringify(a.meta) })),
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
