import { z } from "zod";
import { requireApiUser } from "@/lib/auth/guard";
import { idSegment, readJson } from "@/lib/annotation/api";
import { studyReport } from "@/lib/annotation/report";
import { setStudyStatus, STUDY_STATUSES } from "@/lib/annotation/study";
import { getDb } from "@/lib/db/client";
import { codedResponse, handleRoute, parseWith } from "@/lib/http/respond";

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
