import { retryJob } from "@/lib/jobs";
import { jobActionRoute } from "../action";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** POST /api/admin/jobs/:id/retry queues a failed or cancelled job again; it resumes its build (admins only). 409 when the job's state does not allow it. */
export const POST = jobActionRoute(retryJob);
