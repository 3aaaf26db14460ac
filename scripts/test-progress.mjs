// A node:test reporter for scripts/test.sh: one timestamped line per finished test file (so a long
// run is never silent), a line per failing test, and at the end the slowest files (where to look
// when the suite gets slow). Totals come from the TAP reporter beside it.
import path from "node:path";

const root = process.cwd();
const rel = (file) => (file ? path.relative(root, file) : "?");
const clock = () => new Date().toISOString().slice(11, 19);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;
const firstLine = (error) => String(error?.cause?.message ?? error?.message ?? error ?? "").split("\n")[0];

export default async function* progress(source) {
  const files = []; // { file, ms }
  for await (const { type, data } of source) {
    if (type === "test:complete" && data.name === data.file) {
      // A file (run in its own process) has finished; its own result says whether any test failed.
      // Its tests' events may come later: with several files at once, the runner reports a file's
      // tests only when the files before it are reported.
      const ms = data.details?.duration_ms ?? 0;
      files.push({ file: rel(data.file), ms });
      const ok = data.details?.passed !== false;
      yield `[${clock()}] ${ok ? "✔" : "✖"} ${rel(data.file)} (${seconds(ms)}; file ${files.length})\n`;
    } else if (type === "test:fail" && data.name !== data.file && data.details?.type !== "suite") {
      yield `    ✖ ${rel(data.file)} › ${data.name}: ${firstLine(data.details?.error)}\n`;
    }
  }
  files.sort((a, b) => b.ms - a.ms);
  yield `slowest files: ${files
    .slice(0, 8)
    .map((f) => `${f.file} ${seconds(f.ms)}`)
    .join(", ")}\n`;
}
