import { z } from "zod";
import { requireApiUser } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { handleRoute, json, parseSearchParams, parseWith } from "@/lib/http";
import { listJobs, toJobView, listStages, STAGE_NAME, enqueueStage, JOB_STATUSES, type JobView } from "@/lib/jobs";
import "@/lib/jobs/stages";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const listQuery = z.object({
  status: z.enum(JOB_STATUSES).optional(),
  stage: z.string().regex(STAGE_NAME, "unknown stage").optional(),
  corpus: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export interface AdminJobsList {
  jobs: JobView[];
  stages: { name: string; description: string }[];
  corpora: string[];
}

/** GET /api/admin/jobs?status&stage&corpus&limit → {jobs (newest first), stages, corpora} (admins only). */
export const GET = handleRoute(async (req: Request) => {
  await requireApiUser(req, "admin");
  const q = parseSearchParams(listQuery, new URL(req.url).searchParams);
  const db = getDb();
  const [jobs, corpora] = await Promise.all([listJobs(db, q), db.corpus.findMany({ select: { name: true }, orderBy: { name: "asc" } })]);
  const body: AdminJobsList = { jobs, stages: listStages(), corpora: corpora.map((c) => c.name) };
  return body;
});

const startBody = z
  .object({
    stage: z.string().regex(STAGE_NAME, "stage must be a registered stage name"),
    params: z.record(z.string(), z.unknown()).default({}),
  })
  .strict();

/**
 * POST /api/admin/jobs {stage, params} → 201 {job, created} (admins only). The stage validates
 * its params; the same stage with the same params already queued or running is returned instead
 * of a second one (created: false, 200), so a double click starts one build.
 */
export const POST = handleRoute(async (req: Request) => {
  await requireApiUser(req, "admin");
  let raw: unknown;
  try {
    raw = await req.json();
  } catch {
    throw new CodedError("invalid_request", 'Send a JSON body: {"stage": "graph", "params": {…}}.');
  }
  const input = parseWith(startBody, raw);
  // An unknown stage is an UnknownStageError, coded invalid_request.
  const { job, created } = await enqueueStage(getDb(), input.stage, input.params, { dedupe: true });
  const row = await getDb().job.findUniqueOrThrow({ where: { id: job.id }, include: { corpus: { select: { name: true } } } });
  return json({ job: toJobView(row), created }, { status: created ? 201 : 200 });
});
