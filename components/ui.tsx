import type { ReactNode } from "react";

// The app's one UI kit: control styles, so every page's buttons and fields look and behave alike,
// and the small building blocks (cards, progress bars, spinners, icons) pages share.

export const buttonClass =
  "inline-flex h-9 items-center justify-center gap-1.5 rounded-md border border-line-strong bg-surface px-3 text-sm font-medium text-ink shadow-xs transition-colors hover:bg-canvas disabled:cursor-not-allowed disabled:opacity-45 disabled:hover:bg-surface";

export const primaryButtonClass =
  "inline-flex h-10 items-center justify-center gap-2 rounded-md bg-ink px-4 text-sm font-semibold text-white shadow-xs transition-colors hover:bg-accent/90 disabled:cursor-not-allowed disabled:opacity-50";

export const quietButtonClass =
  "inline-flex h-8 items-center gap-1.5 rounded-md px-2 text-sm font-medium text-ink-muted transition-colors hover:bg-canvas hover:text-ink disabled:cursor-not-allowed disabled:opacity-45";

export const fieldClass =
  "h-9 w-full rounded-md border border-line-strong bg-surface px-2.5 text-sm text-ink shadow-xs transition-colors hover:border-ink-faint disabled:cursor-not-allowed disabled:opacity-60";

export const labelClass = "mb-1 block text-xs font-medium text-ink-muted";

/**
 * The forms of the sign-in, study and admin pages: a roomier secondary button and text field than
 * the explorer's above, and a primary action filled with the accent colour, as tall as the
 * secondary one so the two sit in one row.
 */
export const formButtonClass =
  "inline-flex h-9 items-center justify-center gap-1.5 rounded-md border border-line-strong bg-surface px-3.5 text-sm font-medium text-ink shadow-xs transition-colors hover:bg-canvas disabled:cursor-not-allowed disabled:opacity-60";
export const formPrimaryButtonClass =
  "inline-flex h-9 items-center justify-center gap-1.5 rounded-md border border-accent bg-accent px-3.5 text-sm font-medium text-white shadow-xs transition-colors hover:bg-ink disabled:cursor-not-allowed disabled:opacity-60";
export const formFieldClass =
  "h-10 w-full rounded-md border border-line-strong bg-surface px-3 text-sm text-ink shadow-xs transition-colors hover:border-ink-faint disabled:cursor-not-allowed disabled:opacity-60";

/** A small upper-case kicker above a page or section title. */
export const eyebrowClass = "text-xs font-medium uppercase tracking-[0.08em] text-ink-faint";

/**
 * A native radio or checkbox stretched invisibly over its styled label (which must be
 * `relative`): it keeps keyboard and screen-reader behaviour, and a click anywhere on the label
 * lands on the input itself.
 */
export const overlayInputClass = "absolute inset-0 m-0 size-full cursor-pointer appearance-none opacity-0 disabled:cursor-not-allowed";

/**
 * A row of mutually exclusive options (a radio group styled as a segmented control): arrow keys
 * move between options as with native radios.
 */
export function Segmented<T extends string>({
  name,
  label,
  value,
  options,
  onChange,
  size = "sm",
}: {
  name: string;
  label: string;
  value: T;
  options: { value: T; label: ReactNode; title?: string; disabled?: boolean; testId?: string }[];
  onChange: (v: T) => void;
  size?: "sm" | "md";
}) {
  return (
    <fieldset className="min-w-0">
      <legend className="sr-only">{label}</legend>
      <div className="inline-flex max-w-full rounded-md border border-line-strong bg-canvas p-0.5">
        {options.map((o) => (
          <label
            key={o.value}
            title={o.title}
            data-testid={o.testId}
            className={`relative inline-flex cursor-pointer items-center gap-1 whitespace-nowrap rounded-[0.3rem] font-medium transition-colors has-[:focus-visible]:outline-2 has-[:focus-visible]:outline-focus has-[:disabled]:cursor-not-allowed has-[:disabled]:opacity-50 ${
              size === "md" ? "h-8 px-3 text-sm" : "h-7 px-2.5 text-[0.8125rem]"
            } ${value === o.value ? "bg-surface text-ink shadow-xs" : "text-ink-muted hover:text-ink"}`}
          >
            <input
              type="radio"
              name={name}
              value={o.value}
              checked={value === o.value}
              disabled={o.disabled}
              onChange={() => onChange(o.value)}
              className={overlayInputClass}
            />
            {o.label}
          </label>
        ))}
      </div>
    </fieldset>
  );
}

export function Spinner({ label = "Loading", className = "" }: { label?: string; className?: string }) {
  return (
    <span className={`inline-flex items-center gap-2 text-xs text-ink-faint ${className}`}>
      <span className="size-3.5 animate-spin rounded-full border-2 border-line-strong border-t-ink-muted" aria-hidden="true" />
      <span>{label}</span>
    </span>
  );
}

export function Card({ title, children, className = "", testId }: { title?: ReactNode; children: ReactNode; className?: string; testId?: string }) {
  return (
    <section className={`rounded-lg border border-line bg-surface px-5 py-4 shadow-xs ${className}`} data-testid={testId}>
      {title && <h2 className="mb-3 text-base font-semibold tracking-tight">{title}</h2>}
      {children}
    </section>
  );
}

/** `value` of `total` as a thin bar; "live" (a running job's) in the accent colour, easing as it grows. */
export function ProgressBar({ value, total, label, live = false }: { value: number; total: number; label: string; live?: boolean }) {
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
      <div className={`h-full rounded-full ${live ? "bg-accent transition-[width]" : "bg-ink-muted"}`} style={{ width: `${pct}%` }} />
    </div>
  );
}

/** A study's progress as its list shows it: the bar, then the count in words. */
export function ProgressLine({ value, total, label, children }: { value: number; total: number; label: string; children: ReactNode }) {
  return (
    <div className="mt-3 flex items-center gap-3 text-sm text-ink-muted">
      <div className="w-48">
        <ProgressBar value={value} total={total} label={label} />
      </div>
      <span className="tabular-nums">{children}</span>
    </div>
  );
}

// Numbers shown with fixed digits so the server render and any client render agree.
export const fmtPct = (x: number | null | undefined, digits = 1) => (x == null ? "—" : `${(x * 100).toFixed(digits)}%`);
export const fmtNum = (x: number | null | undefined, digits = 2) => (x == null ? "—" : x.toFixed(digits));
export const fmtCi = (lo: number | null | undefined, hi: number | null | undefined, pct = false) =>
  lo == null || hi == null ? "" : pct ? `[${(lo * 100).toFixed(1)}, ${(hi * 100).toFixed(1)}]` : `[${lo.toFixed(2)}, ${hi.toFixed(2)}]`;

/** Small inline icons (stroke, currentColor); decorative, so hidden from assistive tech. */
export function Icon({ name, className = "size-4" }: { name: IconName; className?: string }) {
  return (
    <svg
      viewBox="0 0 24 24"
      fill="none"
      stroke="currentColor"
      strokeWidth={1.8}
      strokeLinecap="round"
      strokeLinejoin="round"
      className={className}
      aria-hidden="true"
    >
      {ICONS[name]}
    </svg>
  );
}

type IconName = keyof typeof ICONS;

const ICONS = {
  download: (
    <>
      <path d="M12 4v11" />
      <path d="m7 10 5 5 5-5" />
      <path d="M5 19h14" />
    </>
  ),
  bookmark: <path d="M7 4h10v16l-5-3.5L7 20z" />,
  chevronDown: <path d="m6 9 6 6 6-6" />,
  chevronRight: <path d="m9 6 6 6-6 6" />,
  chevronLeft: <path d="m15 6-6 6 6 6" />,
  close: (
    <>
      <path d="M6 6l12 12" />
      <path d="M18 6 6 18" />
    </>
  ),
  upload: (
    <>
      <path d="M12 16V5" />
      <path d="m7 9 5-5 5 5" />
      <path d="M5 19h14" />
    </>
  ),
  search: (
    <>
      <circle cx="11" cy="11" r="6.5" />
      <path d="m20 20-4-4" />
    </>
  ),
  text: (
    <>
      <path d="M5 6h14" />
      <path d="M5 10h14" />
      <path d="M5 14h10" />
      <path d="M5 18h7" />
    </>
  ),
  file: (
    <>
      <path d="M7 3h7l5 5v13H7z" />
      <path d="M14 3v5h5" />
    </>
  ),
  graph: (
    <>
      <circle cx="12" cy="12" r="2.5" />
      <circle cx="5" cy="6" r="2" />
      <circle cx="19" cy="6" r="2" />
      <circle cx="6" cy="19" r="2" />
      <circle cx="18" cy="18" r="2" />
      <path d="m7 7 3.3 3.3M17 7.2l-3.2 3.1M7.5 17.6l2.7-3.8M16.4 16.5l-2.5-2.7" />
    </>
  ),
  list: (
    <>
      <path d="M9 6h11M9 12h11M9 18h11" />
      <path d="M4.5 6h.01M4.5 12h.01M4.5 18h.01" strokeWidth={3} />
    </>
  ),
  columns: (
    <>
      <rect x="3.5" y="4" width="17" height="16" rx="1.5" />
      <path d="M9.2 4v16M14.8 4v16" />
    </>
  ),
  fit: (
    <>
      <path d="M4 9V4h5M20 9V4h-5M4 15v5h5M20 15v5h-5" />
    </>
  ),
  plus: <path d="M12 5v14M5 12h14" />,
  minus: <path d="M5 12h14" />,
  image: (
    <>
      <rect x="3.5" y="4.5" width="17" height="15" rx="1.5" />
      <circle cx="9" cy="10" r="1.6" />
      <path d="m4 18 5.5-5 4 3.5 2.5-2 4 3.5" />
    </>
  ),
  external: (
    <>
      <path d="M14 4h6v6" />
      <path d="M20 4 11 13" />
      <path d="M18 14v5a1 1 0 0 1-1 1H5a1 1 0 0 1-1-1V7a1 1 0 0 1 1-1h5" />
    </>
  ),
  expand: (
    <>
      <circle cx="12" cy="12" r="3" />
      <path d="M12 3v4M12 17v4M3 12h4M17 12h4" />
    </>
  ),
  play: <path d="M8 5v14l11-7z" />,
  info: (
    <>
      <circle cx="12" cy="12" r="8.5" />
      <path d="M12 11v5M12 8h.01" />
    </>
  ),
  check: <path d="m5 12 5 5 9-10" />,
} as const;
