import assert from "node:assert/strict";
import { test } from "node:test";
import { EtaTracker, formatDuration, ProgressLines, progressText } from "./progress";

test("durations read plainly", () => {
  assert.equal(formatDuration(4.4), "4 s");
  assert.equal(formatDuration(200), "3 min 20 s");
  assert.equal(formatDuration(120), "2 min");
  assert.equal(formatDuration(7500), "2 h 05 min");
});

test("the ETA follows the current phase's rate and restarts with a new phase", () => {
  let t = 0;
  const eta = new EtaTracker(() => t);
  assert.equal(eta.observe("embed", 0, 1000), null);
  t = 10_000;
  assert.equal(eta.observe("embed", 100, 1000), 90); // 10 items/s, 900 left
  t = 11_000;
  assert.equal(eta.observe("store", 0, 50), null); // a new phase has no rate yet
  t = 13_000;
  assert.equal(eta.observe("store", 10, 50), 8);
  assert.equal(eta.observe("store", 50, 50), null);
});

test("progress text: counts, percentage, ETA; a stage's own ETA is kept, not doubled", () => {
  assert.equal(progressText({ phase: "embed", done: 4096, total: 17213 }, 200), "embed 4,096/17,213 (23%) · ETA 3 min 20 s");
  assert.equal(progressText({ phase: "train loss 2.1 · ETA 30 s", done: 5, total: 10 }, 99), "train loss 2.1 · ETA 30 s · 5/10 (50%)");
  assert.equal(progressText({ phase: "examples embedding items", done: 0, total: null }, null), "examples embedding items");
});

test("plain lines: one when a phase starts, then one per interval, with elapsed time and ETA", () => {
  let t = 0;
  const out: string[] = [];
  const lines = new ProgressLines("build graph", (l) => out.push(l), { intervalMs: 10_000, now: () => t, timer: false });
  lines.update(0, 1000, "embed");
  for (let i = 1; i <= 30; i++) {
    t = i * 1000;
    lines.update(i * 10, 1000, "embed");
  }
  assert.deepEqual(out, [
    "build graph: embed 0/1,000 (0%) · 0 s elapsed",
    "build graph: embed 100/1,000 (10%) · ETA 1 min 30 s · 10 s elapsed",
    "build graph: embed 200/1,000 (20%) · ETA 1 min 20 s · 20 s elapsed",
    "build graph: embed 300/1,000 (30%) · ETA 1 min 10 s · 30 s elapsed",
  ]);
  t = 31_000;
  lines.update(0, 5, "store");
  assert.equal(out.at(-1), "build graph: store 0/5 (0%) · 31 s elapsed");
  // Nothing reported for an interval: the timer repeats the latest state.
  t = 41_000;
  lines.tick();
  assert.equal(out.at(-1), "build graph: store 0/5 (0%) · 41 s elapsed");
  lines.tick();
  assert.equal(out.length, 6);
  lines.done();
  assert.equal(out.at(-1), "build graph: finished in 41 s");
});
