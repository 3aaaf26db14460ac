"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import { ITEMS_PER_PAPER, splitSizes } from "@/lib/annotation/study";
import { sendJson } from "@/lib/http/client";
import { formButtonClass as buttonClass, formFieldClass as inputClass, formPrimaryButtonClass as primaryButtonClass, labelClass } from "../ui";
import { useRequest } from "./use-request";

interface Annotator {
  id: number;
  email: string;
  name: string;
}

/** The study set-up form, with a live preview of the sheet sizes the split will produce. */
// eslint-disable-next-line max-lines-per-function -- mostly JSX markup: one form's fields (about 90 of its lines)
export function NewStudyForm({
  corpora,
  annotators,
  defaultSeed,
}: {
  corpora: { name: string; papers: number }[];
  annotators: Annotator[];
  defaultSeed: number;
}) {
  const router = useRouter();
  const ids = { name: useId(), corpus: useId(), papers: useId(), core: useId(), seed: useId(), error: useId() };
  const [papers, setPapers] = useState(50);
  const [core, setCore] = useState(40);
  const [chosen, setChosen] = useState<number[]>([]);
  const { pending, error, run } = useRequest({ fallback: "Could not create the study.", leavesPage: true });

  const corePapers = Math.floor(core / ITEMS_PER_PAPER);
  const preview =
    chosen.length > 0 && papers >= corePapers && core % ITEMS_PER_PAPER === 0
      ? splitSizes(papers - corePapers, chosen.length).map((n) => core + n * ITEMS_PER_PAPER)
      : null;

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    await run(async () => {
      const study = await sendJson<{ id: number }>("/api/admin/studies", "POST", {
        name: form.get("name"),
        corpus: form.get("corpus"),
        papers,
        coreItems: core,
        annotatorIds: chosen,
        seed: Number(form.get("seed")),
      });
      router.push(`/admin/studies/${study.id}`);
    });
  }

  return (
    <form onSubmit={onSubmit} className="space-y-6" aria-describedby={error ? ids.error : undefined}>
      {error && (
        <p id={ids.error} role="alert" className="rounded-md border border-danger/30 bg-danger-tint px-3 py-2 text-sm text-danger">
          {error}
        </p>
      )}
      <div className="grid gap-4 sm:grid-cols-2">
        <div>
          <label htmlFor={ids.name} className={labelClass}>
            Study name
          </label>
          <input id={ids.name} name="name" required maxLength={120} className={inputClass} />
        </div>
        <div>
          <label htmlFor={ids.corpus} className={labelClass}>
            Corpus
          </label>
          <select id={ids.corpus} name="corpus" className={inputClass}>
            {corpora.map((c) => (
              <option key={c.name} value={c.name}>
                {c.name} ({c.papers.toLocaleString("en-US")} papers)
              </option>
            ))}
          </select>
        </div>
        <div>
          <label htmlFor={ids.papers} className={labelClass}>
            Papers (each gives one item per facet)
          </label>
          <input id={ids.papers} type="number" min={1} max={1000} value={papers} onChange={(e) => setPapers(Number(e.target.value))} className={inputClass} />
          <p className="mt-1 text-xs text-ink-faint">{papers * ITEMS_PER_PAPER} items in all</p>
        </div>
        <div>
          <label htmlFor={ids.core} className={labelClass}>
            Shared core (items, whole papers of 4)
          </label>
          <input
            id={ids.core}
            type="number"
            min={0}
            step={ITEMS_PER_PAPER}
            value={core}
            onChange={(e) => setCore(Number(e.target.value))}
            className={inputClass}
          />
          <p className="mt-1 text-xs text-ink-faint">Rated by every annotator; agreement is computed on it.</p>
        </div>
        <div>
          <label htmlFor={ids.seed} className={labelClass}>
            Seed (the same seed reproduces the same sample)
          </label>
          <input id={ids.seed} name="seed" type="number" min={0} defaultValue={defaultSeed} className={inputClass} />
        </div>
      </div>

      <fieldset>
        <legend className="text-sm font-semibold">Annotators</legend>
        {annotators.length === 0 ? (
          <p className="mt-2 text-sm text-ink-muted">No active annotators. Create accounts first.</p>
        ) : (
          <ul className="mt-2 grid gap-2 sm:grid-cols-2">
            {annotators.map((a) => (
              <li key={a.id}>
                <label className="flex items-center gap-2 rounded-md border border-line bg-surface px-3 py-2 text-sm">
                  <input
                    type="checkbox"
                    checked={chosen.includes(a.id)}
                    onChange={(e) => setChosen((c) => (e.target.checked ? [...c, a.id] : c.filter((x) => x !== a.id)))}
                  />
                  <span className="font-medium">{a.email}</span>
                  {a.name && <span className="text-ink-muted">{a.name}</span>}
                </label>
              </li>
            ))}
          </ul>
        )}
        <p className="mt-2 text-sm text-ink-muted" data-testid="sheet-preview" aria-live="polite">
          {preview ? `Sheets of ${preview.join(", ")} items (${preview.reduce((a, b) => a + b, 0)} ratings).` : "Choose annotators to see the sheet sizes."}
        </p>
      </fieldset>

      <div className="flex gap-2">
        <button type="submit" disabled={pending} className={primaryButtonClass}>
          {pending ? "Sampling…" : "Create study"}
        </button>
        <button type="button" className={buttonClass} onClick={() => router.push("/admin")}>
          Cancel
        </button>
      </div>
    </form>
  );
}
