import { z } from "zod";
import { requireApiUser } from "@/lib/auth";
import { idSegment, readJson, studyReport, setStudyStatus, STUDY_STATUSES } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { codedResponse, handleRoute, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type Ctx = { params: Promise<{ id: string }> };

/** GET /api/admin/studies/:id → the agreement report (every statistic and every rating). */
export const GET = handleRoute(async (req: Request, ctx: Ctx) => {
  await requireApiUser(req, "admin");
  const id = parseWith(idSegment, (await ctx.params).id);
  return (await studyReport(getDb(), id)) ?? codedResponse("not_found", `no study with id ${id}`);
});

/** PATCH /api/admin/studies/:id {status: "open" | "closed"} → the study. */
export const PATCH = handleRoute(async (req: Request, ctx: Ctx) => {
  await requireApiUser(req, "admin");
  const id = parseWith(idSegment, (await ctx.params).id);
  const { status } = parseWith(z.object({ status: z.enum(STUDY_STATUSES) }), await readJson(req));
  return setStudyStatus(getDb(), id, status);
});
