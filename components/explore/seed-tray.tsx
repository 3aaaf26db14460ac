"use client";

import { buttonClass, Icon, primaryButtonClass, quietButtonClass } from "../ui";
import { MAX_EXPLORER_SEEDS } from "./explore-state";

/**
 * The seed tray: corpus papers gathered with "Add as seed" (they live in ?seeds=), each
 * removable, and "Find papers related to all N seeds", which queries them at once.
 */
export function SeedTray({
  seeds,
  titles,
  current,
  active,
  onAdd,
  onRemove,
  onClear,
  onRun,
}: {
  seeds: string[];
  /** Titles known so far (from results and answers); a seed without one shows its id. */
  titles: Record<string, string>;
  /** The corpus paper now queried alone, offered as a seed; null for text, files or several seeds. */
  current: string | null;
  /** Whether the results on screen are those of these seeds. */
  active: boolean;
  onAdd: (id: string) => void;
  onRemove: (id: string) => void;
  onClear: () => void;
  onRun: () => void;
}) {
  const full = seeds.length >= MAX_EXPLORER_SEEDS;
  const canAddCurrent = current !== null && !seeds.includes(current) && !full;
  if (seeds.length === 0 && !canAddCurrent) return null;
  return (
    <section className="mt-4 rounded-lg border border-line bg-surface p-3 shadow-xs" aria-labelledby="seed-tray-heading" data-testid="seed-tray">
      <div className="flex items-center justify-between gap-2">
        <h2 id="seed-tray-heading" className="text-sm font-semibold">
          Seeds {seeds.length > 0 && <span className="font-normal text-ink-faint">({seeds.length})</span>}
        </h2>
        {seeds.length > 0 && (
          <button type="button" className={`${quietButtonClass} h-7 text-xs`} onClick={onClear}>
            Clear
          </button>
        )}
      </div>
      {seeds.length === 0 ? (
        <p className="mt-1 text-xs text-ink-muted">Gather several papers and find papers related to all of them.</p>
      ) : (
        <ol className="mt-2 space-y-1.5" data-testid="seed-list">
          {seeds.map((id, i) => (
            <li key={id} className="flex items-start gap-2 text-[0.8125rem] leading-snug" data-testid="seed" data-id={id}>
              <span className="mt-px shrink-0 rounded bg-canvas px-1 text-[0.6875rem] font-semibold tabular-nums text-ink-muted">{i + 1}</span>
              <span className="min-w-0 flex-1 wrap-anywhere" data-testid="seed-title">
                {titles[id] ?? id}
              </span>
              <button
                type="button"
                className="shrink-0 rounded p-0.5 text-ink-faint hover:bg-canvas hover:text-ink"
                onClick={() => onRemove(id)}
                aria-label={`Remove seed ${i + 1}`}
                data-testid="seed-remove"
              >
                <Icon name="close" className="size-3.5" />
              </button>
            </li>
          ))}
        </ol>
      )}
      <div className="mt-3 flex flex-col gap-2">
        {canAddCurrent && (
          <button type="button" className={`${buttonClass} h-8 text-xs`} onClick={() => onAdd(current)} data-testid="seed-add-current">
            <Icon name="plus" className="size-3.5" />
            Add this paper as a seed
          </button>
        )}
        {seeds.length > 0 && (
          <button type="button" className={`${primaryButtonClass} h-9 text-xs`} onClick={onRun} disabled={active} data-testid="seeds-run">
            {seeds.length === 1 ? "Find papers related to this seed" : `Find papers related to all ${seeds.length} seeds`}
          </button>
        )}
      </div>
    </section>
  );
}

/** "Add as seed" on a result: adds it to the tray, or says it is there. */
export function SeedButton({ seeded, onSeed }: { seeded: boolean; onSeed: () => void }) {
  return (
    <button
      type="button"
      onClick={onSeed}
      disabled={seeded}
      className="inline-flex items-center gap-1 rounded-md border border-line px-1.5 py-0.5 text-xs font-medium text-ink-muted hover:bg-canvas hover:text-ink disabled:cursor-default disabled:opacity-60 disabled:hover:bg-transparent"
      data-testid="seed-add"
      title={seeded ? "Already a seed" : "Add this paper to the seeds"}
    >
      <Icon name={seeded ? "check" : "plus"} className="size-3" />
      {seeded ? "Seed" : "Add as seed"}
    </button>
  );
}
