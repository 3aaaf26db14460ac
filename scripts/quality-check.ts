/**
 * The pinned quality check (lib/eval/quality-pin.ts):
 *   npm run quality:check               measure every pin of reports/quality-pins.json on the store; exit 1 on a drop
 *   npm run quality:pin -- --write      record today's figures as the pins (a deliberate update: commit its diff)
 * Runs against DATABASE_URL's store, which must hold the demo corpus and its graph build.
 */
import path from "node:path";
import { parseArgs } from "node:util";
import { getDb } from "@/lib/db";
import { sharedDataDir } from "@/lib/paths";
import { checkPins, readPins, repin } from "@/lib/eval/quality-pin";

const { values } = parseArgs({
  options: {
    pins: { type: "string", default: path.join(process.cwd(), "reports", "quality-pins.json") },
    dir: { type: "string", default: path.join(sharedDataDir(), "acl-citegraph") },
    write: { type: "boolean", default: false },
  },
});
const pins = readPins(values.pins as string);
const t0 = performance.now();
if (values.write) {
  const next = await repin(getDb(), pins, values.dir as string, values.pins as string);
  for (const p of next.pins) console.log(`pinned ${p.set} ${p.source} ${p.retriever} (${p.queries} queries): R@20 ${p["R@20"].toFixed(4)}`);
  process.exit(0);
}
const outcomes = await checkPins(getDb(), pins, values.dir as string);
for (const o of outcomes)
  console.log(
    `${o.ok ? "ok  " : "FAIL"} ${o.pin.set} ${o.pin.source} ${o.pin.retriever} (${o.pin.queries} queries): R@20 ${o.measured.toFixed(4)}, pinned ${o.pin["R@20"].toFixed(4)} (${o.change >= 0 ? "+" : ""}${o.change.toFixed(4)}; tolerance ${pins.tolerance})`,
  );
console.log(`quality check: ${outcomes.filter((o) => o.ok).length} of ${outcomes.length} pins held in ${((performance.now() - t0) / 1000).toFixed(0)} s`);
process.exit(outcomes.every((o) => o.ok) ? 0 : 1);
