import { listCorpora } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { handleRoute } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/corpora → { corpora: CorpusOverview[] } */
export const GET = handleRoute(async (_req: Request) => ({ corpora: await listCorpora(getDb()) }));
