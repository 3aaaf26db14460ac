import type { Metadata } from "next";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { StudyCard, StudyList } from "@/components/annotation/study-card";
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
        <StudyList studies={studies} label="My studies" empty="No items are assigned to you yet.">
          {(s) => {
            const done = s.rated === s.total;
            return (
              <StudyCard
                name={s.name}
                align="center"
                facts={
                  <>
                    <span className="font-mono">{s.corpus}</span> · {s.status === "open" ? "open" : "closed (read only)"}
                  </>
                }
                action={{ href: `/annotate/${s.id}`, label: done ? "Review" : s.rated > 0 ? "Resume" : "Start", primary: !done }}
                progress={{ value: s.rated, total: s.total, label: `Progress on ${s.name}`, text: `${s.rated} / ${s.total} rated` }}
              />
            );
          }}
        </StudyList>
      </div>
    </>
  );
}
