import { z } from "zod";
import { requireApiUser } from "@/lib/auth";
import { getDb } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { handleRoute, parseSearchParams, parseWith } from "@/lib/http";
import { getJobDetail } from "@/lib/jobs";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

export const jobIdParams = z.object({
  id: z.coerce
    .number()
    .int("job id must be an integer")
    .positive("job id must be positive")
    .max(2 ** 31 - 1),
});

const detailQuery = z.object({
  logsAfter: z.coerce.number().int().min(0).optional(),
  logs: z.coerce.number().int().min(1).max(1000).default(200),
});

/** GET /api/admin/jobs/:id?logsAfter&logs → the job with its newest log lines (after a log id, when polling) (admins only). */
export const GET = handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  await requireApiUser(req, "admin");
  const { id } = parseWith(jobIdParams, await ctx.params);
  const q = parseSearchParams(detailQuery, new URL(req.url).searchParams);
  const detail = await getJobDetail(getDb(), id, { logsAfter: q.logsAfter, logLimit: q.logs });
  if (!detail) throw new CodedError("not_found", `No job ${id}.`);
  return detail;
});
