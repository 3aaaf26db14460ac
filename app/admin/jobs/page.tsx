import type { Metadata } from "next";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { requireUser } from "@/lib/auth";
import { JobsConsole } from "./jobs-console";

export const metadata: Metadata = { title: "Pipeline jobs" };
export const dynamic = "force-dynamic";

/** /admin/jobs: start a graph build, follow the pipeline's jobs live (progress, log, errors), cancel or retry them. */
export default async function AdminJobsPage() {
  const user = await requireUser("admin", { next: "/admin/jobs" });
  const nav = adminNav("jobs");
  return (
    <>
      <StudyHeader
        eyebrow="Admin"
        title="Pipeline jobs"
        user={user}
        nav={nav}
        description={
          <>
            Builds run as jobs on pipeline workers (<code className="font-mono text-sm">npm run worker</code>). A new build is served once it completes; until
            then the app keeps serving the previous one. A job whose worker dies is resumed by the next worker.
          </>
        }
      />
      <div className="mx-auto max-w-6xl px-4 pt-8 sm:px-6">
        <JobsConsole />
      </div>
    </>
  );
}
