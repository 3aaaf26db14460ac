import { z } from "zod";
import { requireApiUser } from "@/lib/auth";
import { csvResponse, idSegment, ratingsCsv, statisticsCsv, studyReport } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { codedResponse, handleRoute, parseSearchParams, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const query = z.object({ what: z.enum(["ratings", "statistics"]).default("ratings") });

/** GET /api/admin/studies/:id/export?what=ratings|statistics → a CSV file. */
export const GET = handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  await requireApiUser(req, "admin");
  const id = parseWith(idSegment, (await ctx.params).id);
  const { what } = parseSearchParams(query, new URL(req.url).searchParams);
  const report = await studyReport(getDb(), id);
  if (!report) return codedResponse("not_found", `no study with id ${id}`);
  return csvResponse(what === "ratings" ? ratingsCsv(report) : statisticsCsv(report), `study-${id}-${what}.csv`);
});
