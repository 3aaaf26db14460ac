"use client";

import Link from "next/link";
import { usePathname } from "next/navigation";

const LINKS = [
  { href: "/", label: "Explore", match: (p: string) => p === "/" },
  // Paper pages belong to the corpus, so they keep "Browse" marked as current.
  { href: "/papers", label: "Browse", match: (p: string) => p === "/papers" || p.startsWith("/papers/") },
  { href: "/demo", label: "Demo", match: (p: string) => p.startsWith("/demo") },
  { href: "/eval", label: "Evaluation", match: (p: string) => p.startsWith("/eval") },
  { href: "/annotate", label: "Annotate", match: (p: string) => p.startsWith("/annotate") || p.startsWith("/admin") || p === "/login" },
];

export function SiteNav() {
  const pathname = usePathname();
  return (
    <nav aria-label="Main" className="flex items-center gap-1 text-sm">
      {LINKS.map((l) => {
        const current = l.match(pathname);
        return (
          <Link
            key={l.href}
            href={l.href}
            aria-current={current ? "page" : undefined}
            className={`rounded-md px-2.5 py-1.5 font-medium transition-colors ${
              current ? "bg-canvas text-ink" : "text-ink-muted hover:bg-canvas hover:text-ink"
            }`}
          >
            {l.label}
          </Link>
        );
      })}
      <a
        href="/api/corpora"
        className="rounded-md px-2.5 py-1.5 font-medium text-ink-muted transition-colors hover:bg-canvas hover:text-ink"
        title="JSON API: corpora, papers and paper details"
      >
        API
      </a>
    </nav>
  );
}
