import Link from "next/link";
import type { ReactNode } from "react";
import type { SessionUser } from "@/lib/auth/users";

// Building blocks shared by the sign-in, admin and annotation pages, in the app's existing style.

export const buttonClass =
  "inline-flex h-9 items-center justify-center gap-1.5 rounded-md border border-line-strong bg-surface px-3.5 text-sm font-medium text-ink shadow-xs transition-colors hover:bg-canvas disabled:cursor-not-allowed disabled:opacity-60";
export const primaryButtonClass =
  "inline-flex h-9 items-center justify-center gap-1.5 rounded-md border border-accent bg-accent px-3.5 text-sm font-medium text-white shadow-xs transition-colors hover:bg-ink disabled:cursor-not-allowed disabled:opacity-60";
export const inputClass =
  "h-10 w-full rounded-md border border-line-strong bg-surface px-3 text-sm text-ink shadow-xs transition-colors hover:border-ink-faint disabled:cursor-not-allowed disabled:opacity-60";
export const labelClass = "mb-1 block text-xs font-medium text-ink-muted";
export const eyebrowClass = "text-xs font-medium uppercase tracking-[0.08em] text-ink-faint";

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

export function Card({ title, children, className = "", testId }: { title?: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={`rounded-lg border border-line bg-surface px-5 py-4 shadow-xs ${className}`} data-testid={testId}>
      {title && <h2 className="mb-3 text-base font-semibold tracking-tight">{title}</h2>}
      {children}
    </section>
  );
}

export function ProgressBar({ value, total, label }: { value: number; total: number; label: string }) {
  const pct = total > 0 ? Math.round((value / total) * 100) : 0;
  return (
    <div
      className="h-1.5 w-full overflow-hidden rounded-full bg-line"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={value}
    >
      <div className="h-full rounded-full bg-ink-muted" style={{ width: `${pct}%` }} />
    </div>
  );
}

// Numbers shown with fixed digits so the server render and any client render agree.
export const fmtPct = (x: number | null | undefined, digits = 1) => (x == null ? "—" : `${(x * 100).toFixed(digits)}%`);
export const fmtNum = (x: number | null | undefined, digits = 2) => (x == null ? "—" : x.toFixed(digits));
export const fmtCi = (lo: number | null | undefined, hi: number | null | undefined, pct = false) =>
  lo == null || hi == null ? "" : pct ? `[${(lo * 100).toFixed(1)}, ${(hi * 100).toFixed(1)}]` : `[${lo.toFixed(2)}, ${hi.toFixed(2)}]`;
