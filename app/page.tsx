import type { Metadata } from "next";
import { Explorer } from "@/components/explore/explorer";

export const metadata: Metadata = { title: "Explore related work" };

// Rendered per request: the explorer reads its options from the URL (useSearchParams), and a
// dynamic page renders them on the server, so a shared results URL paints its final layout
// without a client-only fallback (no layout shift). The page itself reads no data.
export default async function HomePage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await searchParams;
  return <Explorer />;
}
