import { handleLibraryUpload } from "@/lib/query/library-file";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * POST /api/uploads/library — "your library" (issue 19): a BibTeX or RIS file in the "file" field
 * of a multipart body → { name, format, entries: [{ key, doi, title, year, line }] }, read by the
 * corpus importers' parsers. Nothing is stored: the explorer keeps the library in the browser.
 * A bad file is a 400 whose issues name each problem as "file:line".
 */
export async function POST(req: Request): Promise<Response> {
  return handleLibraryUpload(req);
}
