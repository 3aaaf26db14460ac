import { listCorpora } from "@/lib/corpus/browse";
import { getDb } from "@/lib/db/client";
import { handleRoute } from "@/lib/http/respond";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/corpora → { corpora: CorpusOverview[] } */
export const GET = handleRoute(async (_req: Request) => ({ corpora: await listCorpora(getDb()) }));
