"use client";

import { useEffect, useId, useRef, useState } from "react";
import { EXPORT_FORMATS, exportFile, FORMAT_LABELS, type ExportFormat, type ExportRecord } from "@/lib/export";
import { downloadFile } from "./download";
import { buttonClass, Icon } from "./ui";

const HINTS: Record<ExportFormat, string> = {
  bibtex: "LaTeX, Overleaf, JabRef",
  ris: "Zotero, Mendeley, EndNote",
  csv: "Spreadsheets",
  json: "With facet and seed provenance",
};

/**
 * "Export ▾": a disclosure with one button per format. Records are read when a format is
 * picked, so the list exported is the one on screen at that moment.
 */
export function ExportMenu({
  records,
  name,
  context,
  label = "Export",
  disabled = false,
  align = "right",
  placement = "down",
}: {
  /** The records, or a function that reads them when a format is picked (client callers only). */
  records: ExportRecord[] | (() => ExportRecord[]);
  name: string;
  context?: () => Record<string, unknown>;
  label?: string;
  disabled?: boolean;
  align?: "left" | "right";
  placement?: "down" | "up";
}) {
  const [open, setOpen] = useState(false);
  const menuId = useId();
  const root = useRef<HTMLDivElement>(null);
  const trigger = useRef<HTMLButtonElement>(null);

  useEffect(() => {
    if (!open) return;
    const onDown = (e: PointerEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false);
    };
    const onKey = (e: KeyboardEvent) => {
      if (e.key === "Escape") {
        setOpen(false);
        trigger.current?.focus();
      }
    };
    document.addEventListener("pointerdown", onDown);
    document.addEventListener("keydown", onKey);
    return () => {
      document.removeEventListener("pointerdown", onDown);
      document.removeEventListener("keydown", onKey);
    };
  }, [open]);

  function pick(format: ExportFormat) {
    downloadFile(exportFile(format, typeof records === "function" ? records() : records, name, context?.()));
    setOpen(false);
    trigger.current?.focus();
  }

  return (
    <div ref={root} className="relative">
      <button
        ref={trigger}
        type="button"
        className={buttonClass}
        aria-expanded={open}
        aria-controls={menuId}
        disabled={disabled}
        onClick={() => setOpen((o) => !o)}
      >
        <Icon name="download" />
        {label}
        <Icon name="chevronDown" className="size-3.5 text-ink-faint" />
      </button>
      {open && (
        <div
          id={menuId}
          role="group"
          aria-label={`${label} formats`}
          className={`absolute z-40 w-64 ${placement === "up" ? "bottom-full mb-1.5" : "top-full mt-1.5"} rounded-lg border border-line bg-surface p-1 shadow-lg ${align === "right" ? "right-0" : "left-0"}`}
        >
          {EXPORT_FORMATS.map((f) => (
            <button
              key={f}
              type="button"
              onClick={() => pick(f)}
              className="flex w-full items-baseline justify-between gap-3 rounded-md px-3 py-2 text-left text-sm hover:bg-canvas focus-visible:bg-canvas"
            >
              <span className="font-medium">{FORMAT_LABELS[f]}</span>
              <span className="text-xs text-ink-faint">{HINTS[f]}</span>
            </button>
          ))}
        </div>
      )}
    </div>
  );
}
