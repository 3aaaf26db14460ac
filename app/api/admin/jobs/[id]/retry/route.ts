import { requireApiUser } from "@/lib/auth/guard";
import { getDb } from "@/lib/db/client";
import { HttpError, handleRoute, parseWith } from "@/lib/http/respond";
import { retryJob, getJobDetail, JobStateError } from "@/lib/jobs/queue";
import { jobIdParams } from "../route";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** POST /api/admin/jobs/:id/retry queues a failed or cancelled job again; it resumes its build (admins only). 409 when the job's state does not allow it. */
export const POST = handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  await requireApiUser(req, "admin");
  const { id } = parseWith(jobIdParams, await ctx.params);
  try {
    await retryJob(getDb(), id);
  } catch (err) {
    if (err instanceof JobStateError) throw new HttpError(/does not exist/.test(err.message) ? 404 : 409, /does not exist/.test(err.message) ? "not_found" : "conflict", err.message);
    throw err;
  }
  return getJobDetail(getDb(), id);
});
