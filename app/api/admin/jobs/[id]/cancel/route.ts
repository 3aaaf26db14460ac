import { cancelJob } from "@/lib/jobs";
import { jobActionRoute } from "../action";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** POST /api/admin/jobs/:id/cancel cancels a queued or running job (its build is never served) (admins only). 409 when the job's state does not allow it. */
export const POST = jobActionRoute(cancelJob);
