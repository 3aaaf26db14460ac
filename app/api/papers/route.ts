import { listPapers, paperListQuery } from "@/lib/corpus";
import { getDb } from "@/lib/db";
import { handleRoute, parseSearchParams } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/papers?corpus&q&yearFrom&yearTo&venue&page&pageSize → PaperList */
export const GET = handleRoute(async (req: Request) => {
  const query = parseSearchParams(paperListQuery, new URL(req.url).searchParams);
  return listPapers(getDb(), query);
});
