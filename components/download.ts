import type { ExportFile } from "@/lib/export";

/** Saves a file from the browser: a Blob behind a temporary link (the CSP allows blob: URLs). */
export function downloadBlob(blob: Blob, filename: string): void {
  const url = URL.createObjectURL(blob);
  const a = document.createElement("a");
  a.href = url;
  a.download = filename;
  a.rel = "noopener";
  document.body.append(a);
  a.click();
  a.remove();
  // Revoke after the click has been handled; revoking at once can cancel the download.
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

export function downloadFile(file: ExportFile): void {
  downloadBlob(new Blob([file.content], { type: file.mime }), file.filename);
}
