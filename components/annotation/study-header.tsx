import Link from "next/link";
import type { ReactNode } from "react";
import type { SessionUser } from "@/lib/auth";
import { eyebrowClass } from "../ui";

// The header band and navigation of the signed-in study and admin pages; their controls come from components/ui.tsx.

export interface NavLink {
  href: string;
  label: string;
  current?: boolean;
}

/** The signed-in header band of the study pages: where you are, your account, sign-out. */
export function StudyHeader({
  eyebrow,
  title,
  description,
  user,
  nav = [],
  actions,
}: {
  eyebrow: string;
  title: ReactNode;
  description?: ReactNode;
  user: SessionUser;
  nav?: NavLink[];
  actions?: ReactNode;
}) {
  return (
    <section className="border-b border-line bg-surface">
      <div className="mx-auto max-w-6xl px-4 pb-6 pt-6 sm:px-6">
        <div className="flex flex-wrap items-center justify-between gap-3 text-sm">
          <nav aria-label="Study area" className="flex flex-wrap items-center gap-1">
            {nav.map((l) => (
              <Link
                key={l.href}
                href={l.href}
                aria-current={l.current ? "page" : undefined}
                className={`rounded-md px-2.5 py-1.5 font-medium transition-colors ${
                  l.current ? "bg-canvas text-ink" : "text-ink-muted hover:bg-canvas hover:text-ink"
                }`}
              >
                {l.label}
              </Link>
            ))}
          </nav>
          <div className="flex items-center gap-3 text-ink-muted">
            <span data-testid="signed-in-as">
              {user.name || user.email} <span className="rounded bg-canvas px-1.5 py-0.5 text-xs">{user.role}</span>
            </span>
            {/* A plain form: signing out works without JavaScript and lands on the sign-in page. */}
            <form method="post" action="/api/auth/logout">
              <button type="submit" className="rounded-md px-2.5 py-1.5 font-medium text-ink-muted hover:bg-canvas hover:text-ink">
                Sign out
              </button>
            </form>
          </div>
        </div>
        <div className="mt-5 flex flex-col gap-4 sm:flex-row sm:items-end sm:justify-between">
          <div className="min-w-0">
            <p className={eyebrowClass}>{eyebrow}</p>
            <h1 className="mt-1 text-2xl font-semibold tracking-tight sm:text-[1.75rem]">{title}</h1>
            {description && <div className="mt-2 max-w-3xl text-[0.9375rem] leading-relaxed text-ink-muted">{description}</div>}
          </div>
          {actions && <div className="flex shrink-0 flex-wrap gap-2">{actions}</div>}
        </div>
      </div>
    </section>
  );
}

export function adminNav(current: "studies" | "users" | "annotate" | "jobs" | "corpora"): NavLink[] {
  return [
    { href: "/admin", label: "Studies", current: current === "studies" },
    { href: "/admin/users", label: "Annotators", current: current === "users" },
    { href: "/admin/corpora", label: "Corpora", current: current === "corpora" },
    { href: "/admin/jobs", label: "Jobs", current: current === "jobs" },
    { href: "/annotate", label: "My sheets", current: current === "annotate" },
  ];
}
