import { requireApiUser } from "@/lib/auth";
import { getDb, type Db } from "@/lib/db";
import { handleRoute, parseWith } from "@/lib/http";
import { getJobDetail } from "@/lib/jobs";
import { jobIdParams } from "./route";

/**
 * The POST handler of an operator action on one job (admins only): answers the job's detail
 * afterwards, 404 for an unknown job and 409 when its state does not allow the action.
 */
export function jobActionRoute(action: (db: Db, id: number) => Promise<unknown>) {
  return handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
    await requireApiUser(req, "admin");
    const { id } = parseWith(jobIdParams, await ctx.params);
    // A JobStateError is coded: not_found for an unknown job, conflict for a state that forbids the action.
    await action(getDb(), id);
    return getJobDetail(getDb(), id);
  });
}
