import Link from "next/link";

export default function PaperNotFound() {
  return (
    <div className="mx-auto max-w-2xl px-4 py-20 text-center sm:px-6">
      <p className="font-mono text-sm text-ink-faint">404</p>
      <h1 className="mt-2 text-2xl font-semibold tracking-tight">Paper not found</h1>
      <p className="mt-3 text-[0.9375rem] leading-relaxed text-ink-muted">
        This corpus has no paper with that id, or the corpus itself has not been imported. Paper ids are the corpus&apos;s own identifiers, such as an ACL
        Anthology id.
      </p>
      <Link
        href="/papers"
        className="mt-6 inline-flex h-9 items-center rounded-md border border-line-strong bg-surface px-4 text-sm font-medium shadow-xs hover:bg-canvas"
      >
        Search the corpus
      </Link>
    </div>
  );
}
