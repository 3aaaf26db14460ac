import { listPapers, paperListQuery } from "@/lib/corpus/browse";
import { getDb } from "@/lib/db/client";
import { handleRoute, parseSearchParams } from "@/lib/http/respond";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/papers?corpus&q&yearFrom&yearTo&venue&page&pageSize → PaperList */
export const GET = handleRoute(async (req: Request) => {
  const query = parseSearchParams(paperListQuery, new URL(req.url).searchParams);
  return listPapers(getDb(), query);
});
