import type { Metadata } from "next";
import Link from "next/link";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { StudyCard, StudyList } from "@/components/annotation/study-card";
import { Card, fmtPct, formPrimaryButtonClass as primaryButtonClass } from "@/components/ui";
import { listStudies } from "@/lib/annotation/study";
import { requireUser } from "@/lib/auth";
import { listUsers } from "@/lib/auth";
import { getDb } from "@/lib/db/client";

export const metadata: Metadata = { title: "Studies" };
export const dynamic = "force-dynamic";

export default async function AdminHome() {
  const user = await requireUser("admin", { next: "/admin" });
  const [studies, annotators] = await Promise.all([listStudies(getDb()), listUsers(getDb(), "annotator")]);
  return (
    <>
      <StudyHeader
        eyebrow="Admin"
        title="Groundedness studies"
        description="Annotators rate whether extracted facet items are supported by their paper (1 fabricated … 5 fully grounded). Create a study, follow its progress and read agreement."
        user={user}
        nav={adminNav("studies")}
        actions={
          <Link href="/admin/studies/new" className={primaryButtonClass}>
            New study
          </Link>
        }
      />
      <div className="mx-auto max-w-6xl space-y-6 px-4 pt-8 sm:px-6">
        {annotators.length === 0 && (
          <Card>
            <p className="text-sm text-ink-muted">
              No annotators yet.{" "}
              <Link href="/admin/users" className="font-medium text-ink underline">
                Create annotator accounts
              </Link>{" "}
              before setting up a study.
            </p>
          </Card>
        )}
        <StudyList studies={studies} label="Studies" empty="No studies yet.">
          {(s) => (
            <StudyCard
              name={s.name}
              href={`/admin/studies/${s.id}`}
              facts={
                <>
                  <span className="font-mono">{s.corpus}</span> · {s.params.papers} papers · {s.items} items · core {s.coreItems} ·{" "}
                  {s.params.annotatorIds.length} annotators · seed {s.seed} ·{" "}
                  <span className={s.status === "open" ? "text-ink" : "text-ink-faint"}>{s.status}</span>
                </>
              }
              action={{ href: `/admin/studies/${s.id}`, label: "Agreement" }}
              progress={{
                value: s.ratings,
                total: s.expectedRatings,
                label: `Ratings of ${s.name}`,
                text: `${s.ratings} / ${s.expectedRatings} ratings (${fmtPct(s.expectedRatings ? s.ratings / s.expectedRatings : 0, 0)})`,
              }}
            />
          )}
        </StudyList>
      </div>
    </>
  );
}
