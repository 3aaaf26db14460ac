import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { RatingView } from "@/components/annotation/rating-view";
import { idSegment, getSheet, getSheetItem, SCALE_LABELS } from "@/lib/annotation";
import { requireUser } from "@/lib/auth";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "Rate items" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<{ item?: string | string[] }>;

export default async function RatePage({ params, searchParams }: { params: Promise<{ studyId: string }>; searchParams: SearchParams }) {
  const { studyId: raw } = await params;
  const user = await requireUser(undefined, { next: `/annotate/${encodeURIComponent(raw)}` });
  const studyId = idSegment.safeParse(raw);
  if (!studyId.success) notFound();
  // Another annotator's study (or none) answers exactly like a missing page.
  const sheet = await getSheet(getDb(), studyId.data, user.id);
  if (!sheet) notFound();
  // Resume: the item in the URL if it is on this sheet, else the first unrated one.
  const wanted = Number((await searchParams).item);
  const fromUrl = sheet.entries.findIndex((e) => e.studyItemId === wanted);
  const firstUnrated = sheet.entries.findIndex((e) => e.score === null);
  const start = fromUrl >= 0 ? fromUrl : firstUnrated >= 0 ? firstUnrated : 0;
  // The first item comes with the page; the rest load (and prefetch) from the API.
  const initialItem = await getSheetItem(getDb(), studyId.data, user.id, sheet.entries[start].studyItemId);
  return <RatingView sheet={sheet} startIndex={start} initialItem={initialItem} user={user} scale={SCALE_LABELS} />;
}
