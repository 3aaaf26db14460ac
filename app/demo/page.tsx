import type { Metadata } from "next";
import { DemoPlayer } from "@/components/demo/demo-player";

export const metadata: Metadata = { title: "Demo: facet attribution" };

// Per request, like the explorer: the example and step come from the URL and render on the
// server, so a presenter's reload lands on the same slide without a flash.
export default async function DemoPage({ searchParams }: { searchParams: Promise<Record<string, string | string[] | undefined>> }) {
  await searchParams;
  return <DemoPlayer />;
}
