import type { Metadata } from "next";
import Link from "next/link";
import { CorpusImportForm } from "@/components/admin/corpus-import-form";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { Card } from "@/components/ui";
import { requireUser } from "@/lib/auth";
import { FORMAT_LABELS, IMPORT_FORMATS } from "@/lib/corpus";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "Corpora" };
export const dynamic = "force-dynamic";

/** /admin/corpora: the corpora in the store, and an upload that imports papers exactly as `graft import` does. */
export default async function AdminCorporaPage() {
  const user = await requireUser("admin", { next: "/admin/corpora" });
  const corpora = await getDb().corpus.findMany({
    select: { name: true, description: true, source: true, _count: { select: { papers: { where: { role: "corpus" } } } } },
    orderBy: { name: "asc" },
  });
  const formats = IMPORT_FORMATS.map((f) => ({ value: f, label: FORMAT_LABELS[f] }));
  return (
    <>
      <StudyHeader
        eyebrow="Admin"
        title="Corpora"
        user={user}
        nav={adminNav("corpora")}
        description={
          <>
            Bring your own papers: a BibTeX or RIS export (Zotero, Mendeley, JabRef, EndNote), OpenAlex works, Semantic Scholar dataset files, the arXiv
            metadata snapshot or Graft&apos;s own JSONL. The upload runs the same import as <code className="font-mono text-sm">npm run graft -- import</code>:
            every record is validated first and a file with a problem is refused as a whole, naming each line; importing the same file again adds nothing.
          </>
        }
      />
      <div className="mx-auto max-w-6xl space-y-6 px-4 pt-8 sm:px-6">
        <CorpusImportForm formats={formats} corpora={corpora.map((c) => c.name)} />
        <Card title="In the store">
          {corpora.length === 0 ? (
            <p className="text-sm text-ink-muted">No corpus yet: import one above.</p>
          ) : (
            <ul className="divide-y divide-line" aria-label="Corpora" data-testid="corpus-list">
              {corpora.map((c) => (
                <li key={c.name} className="flex flex-wrap items-baseline justify-between gap-3 py-2.5 text-sm" data-corpus={c.name}>
                  <span className="min-w-0">
                    <Link href={`/papers?corpus=${encodeURIComponent(c.name)}`} className="font-mono font-medium hover:underline">
                      {c.name}
                    </Link>
                    {c.description && <span className="text-ink-muted"> · {c.description}</span>}
                    {c.source && <span className="block truncate text-xs text-ink-faint">{c.source}</span>}
                  </span>
                  <span className="tabular-nums text-ink-muted">{c._count.papers.toLocaleString("en-US")} papers</span>
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>
    </>
  );
}
