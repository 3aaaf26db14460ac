import type { Metadata } from "next";
import Link from "next/link";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { Card, formButtonClass as buttonClass, formPrimaryButtonClass as primaryButtonClass, ProgressLine } from "@/components/ui";
import { myStudies } from "@/lib/annotation";
import { requireUser } from "@/lib/auth";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "My sheets" };
export const dynamic = "force-dynamic";

export default async function AnnotateHome() {
  const user = await requireUser(undefined, { next: "/annotate" });
  const studies = await myStudies(getDb(), user.id);
  return (
    <>
      <StudyHeader
        eyebrow="Groundedness study"
        title="My sheets"
        description="Rate whether each extracted facet item is supported by its paper, from 5 (fully grounded) to 1 (fabricated), with a one-sentence rationale."
        user={user}
        nav={user.role === "admin" ? adminNav("annotate") : [{ href: "/annotate", label: "My sheets", current: true }]}
      />
      <div className="mx-auto max-w-6xl space-y-3 px-4 pt-8 sm:px-6">
        {studies.length === 0 ? (
          <Card>
            <p className="text-sm text-ink-muted">No items are assigned to you yet.</p>
          </Card>
        ) : (
          <ul className="space-y-3" aria-label="My studies">
            {studies.map((s) => {
              const done = s.rated === s.total;
              return (
                <li key={s.id}>
                  <Card>
                    <div className="flex flex-wrap items-center justify-between gap-3">
                      <div className="min-w-0">
                        <p className="text-base font-semibold tracking-tight">{s.name}</p>
                        <p className="mt-1 text-sm text-ink-muted">
                          <span className="font-mono">{s.corpus}</span> · {s.status === "open" ? "open" : "closed (read only)"}
                        </p>
                      </div>
                      <Link href={`/annotate/${s.id}`} className={done ? buttonClass : primaryButtonClass}>
                        {done ? "Review" : s.rated > 0 ? "Resume" : "Start"}
                      </Link>
                    </div>
                    <ProgressLine value={s.rated} total={s.total} label={`Progress on ${s.name}`}>
                      {s.rated} / {s.total} rated
                    </ProgressLine>
                  </Card>
                </li>
              );
            })}
          </ul>
        )}
      </div>
    </>
  );
}
