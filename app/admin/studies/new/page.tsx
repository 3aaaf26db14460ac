import { randomInt } from "node:crypto";
import type { Metadata } from "next";
import { NewStudyForm } from "@/components/annotation/new-study-form";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { requireUser, listUsers } from "@/lib/auth";
import { listCorpora } from "@/lib/corpus";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "New study" };
export const dynamic = "force-dynamic";

export default async function NewStudyPage() {
  const user = await requireUser("admin", { next: "/admin/studies/new" });
  const [corpora, annotators] = await Promise.all([listCorpora(getDb()), listUsers(getDb(), "annotator")]);
  return (
    <>
      <StudyHeader
        eyebrow="Admin · new study"
        title="Set up a groundedness study"
        description="Sample papers whose extraction yielded all four facets, one item per facet; a shared core is rated by every annotator and the other papers are split between them. The paper's set-up: 50 papers, a 40-item core, 3 annotators (sheets of 92, 92 and 96)."
        user={user}
        nav={adminNav("studies")}
      />
      <div className="mx-auto max-w-3xl px-4 pt-8 sm:px-6">
        <NewStudyForm
          corpora={corpora.map((c) => ({ name: c.name, papers: c.papers }))}
          annotators={annotators.filter((a) => !a.disabled).map((a) => ({ id: a.id, email: a.email, name: a.name }))}
          defaultSeed={randomInt(0, 2 ** 31 - 1)}
        />
      </div>
    </>
  );
}
