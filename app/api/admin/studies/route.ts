import { randomInt } from "node:crypto";
import { requireApiUser } from "@/lib/auth";
import { readJson, createStudy, listStudies, studyOptions } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { handleRoute, json, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/admin/studies → {studies}. */
export const GET = handleRoute(async (req: Request) => {
  await requireApiUser(req, "admin");
  return { studies: await listStudies(getDb()) };
});

/**
 * POST /api/admin/studies {name, corpus?, papers?, coreItems?, annotatorIds, seed?} → 201 study.
 * Without a seed one is drawn and stored, so the sample can still be reproduced.
 */
export const POST = handleRoute(async (req: Request) => {
  const admin = await requireApiUser(req, "admin");
  const raw = await readJson(req);
  const withSeed = typeof raw === "object" && raw !== null && (raw as { seed?: unknown }).seed == null ? { ...raw, seed: randomInt(0, 2 ** 31 - 1) } : raw;
  const options = parseWith(studyOptions, withSeed);
  const study = await createStudy(getDb(), options, admin.id);
  return json(study, { status: 201 });
});
