import type { Metadata } from "next";
import { notFound } from "next/navigation";
import { AgreementDashboard } from "@/components/annotation/agreement-dashboard";
import { StudyStatusToggle } from "@/components/annotation/study-status";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { Card, formButtonClass as buttonClass, ProgressBar } from "@/components/ui";
import { idSegment, studyReport } from "@/lib/annotation";
import { requireUser } from "@/lib/auth";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "Study agreement" };
export const dynamic = "force-dynamic";

export default async function StudyPage({ params }: { params: Promise<{ id: string }> }) {
  const { id: raw } = await params;
  const user = await requireUser("admin", { next: `/admin/studies/${encodeURIComponent(raw)}` });
  const id = idSegment.safeParse(raw);
  if (!id.success) notFound();
  const report = await studyReport(getDb(), id.data);
  if (!report) notFound();
  const { study } = report;
  const exportHref = (what: string) => `/api/admin/studies/${study.id}/export?what=${what}`;
  return (
    <>
      <StudyHeader
        eyebrow={`Study ${study.id} · ${study.status}`}
        title={study.name}
        description={
          <>
            <span className="font-mono">{study.corpus}</span> · {study.params.papers} papers · {study.items} items · core {study.coreItems} · seed {study.seed}{" "}
            · {study.ratings} of {study.expectedRatings} ratings in
          </>
        }
        user={user}
        nav={adminNav("studies")}
        actions={
          <>
            <a href={exportHref("ratings")} className={buttonClass} download>
              Ratings CSV
            </a>
            <a href={exportHref("statistics")} className={buttonClass} download>
              Statistics CSV
            </a>
            <StudyStatusToggle studyId={study.id} status={study.status} />
          </>
        }
      />
      <div className="mx-auto max-w-6xl space-y-6 px-4 pt-8 sm:px-6">
        <Card title="Progress">
          <ul className="grid gap-3 sm:grid-cols-2 lg:grid-cols-3">
            {report.annotators.map((a) => (
              <li key={a.userId} className="text-sm">
                <div className="flex justify-between gap-2">
                  <span className="truncate font-medium">{a.email}</span>
                  <span className="tabular-nums text-ink-muted">
                    {a.summary.n} / {a.assigned}
                  </span>
                </div>
                <div className="mt-1.5">
                  <ProgressBar value={a.summary.n} total={a.assigned} label={`Progress of ${a.email}`} />
                </div>
              </li>
            ))}
          </ul>
        </Card>
        <AgreementDashboard report={report} />
      </div>
    </>
  );
}
