// A node:test reporter for scripts/test.sh: one timestamped line per finished test file (so a long
// run is never silent), each failing test's name and error under its file, and at the end the
// slowest files (where to look when the suite gets slow).
import path from "node:path";

const root = process.cwd();
const rel = (file) => (file ? path.relative(root, file) : "?");
const clock = () => new Date().toISOString().slice(11, 19);
const seconds = (ms) => `${(ms / 1000).toFixed(1)} s`;

export default async function* progress(source) {
  const counts = new Map(); // file → { pass, fail }
  const files = []; // { file, ms }
  const tally = (file) => counts.get(file) ?? counts.set(file, { pass: 0, fail: 0, errors: [] }).get(file);
  let done = 0;
  for await (const { type, data } of source) {
    // test:complete comes as each test ends (test:pass/fail wait for the files before it to be
    // reported); suites are not counted, like the runner's own totals.
    if (type !== "test:complete" || data.details?.type === "suite") continue;
    if (data.name !== data.file) {
      const t = tally(data.file);
      if (data.details?.passed) t.pass += data.skip || data.todo ? 0 : 1;
      else {
        t.fail += 1;
        const error = data.details?.error;
        const message = String(error?.cause?.message ?? error?.message ?? error ?? "").split("\n")[0];
        t.errors.push(`    ✖ ${data.name}: ${message}\n`);
      }
    } else {
      // The file itself (run in its own process) has finished.
      const t = tally(data.file);
      const ms = data.details?.duration_ms ?? 0;
      const failed = t.fail > 0 || data.details?.passed === false;
      // A file that fails outside any test (it does not load, or exits early) has no test to name.
      if (failed && t.errors.length === 0) t.errors.push(`    ✖ ${String(data.details?.error?.message ?? "failed").split("\n")[0]}\n`);
      files.push({ file: rel(data.file), ms });
      done += 1;
      yield `[${clock()}] ${failed ? "✖" : "✔"} ${rel(data.file)} (${seconds(ms)}; ${t.pass} passed, ${t.fail} failed; file ${done})\n`;
      yield t.errors.join("");
    }
  }
  files.sort((a, b) => b.ms - a.ms);
  yield `slowest files: ${files
    .slice(0, 8)
    .map((f) => `${f.file} ${seconds(f.ms)}`)
    .join(", ")}\n`;
}
