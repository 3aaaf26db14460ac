import assert from "node:assert/strict";
import { test } from "node:test";
import { ProgressBar, progressMode } from "./progress";

test("the CLI draws a bar on a terminal and prints plain lines elsewhere", () => {
  const saved = { CI: process.env.CI, GRAFT_PROGRESS: process.env.GRAFT_PROGRESS };
  try {
    delete process.env.CI;
    delete process.env.GRAFT_PROGRESS;
    assert.equal(progressMode({ isTTY: true }), "bar");
    assert.equal(progressMode({ isTTY: false }), "lines");
    process.env.CI = "1";
    assert.equal(progressMode({ isTTY: true }), "lines");
    process.env.GRAFT_PROGRESS = "off";
    assert.equal(progressMode({ isTTY: false }), "off");
  } finally {
    for (const [k, v] of Object.entries(saved))
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
  }
  const written: string[] = [];
  const stream = { isTTY: false, write: (s: string) => written.push(s) } as unknown as NodeJS.WritableStream;
  const bar = new ProgressBar("import tiny", stream, "lines");
  bar.update(0, 2, "papers");
  bar.done();
  assert.deepEqual(written, ["import tiny: papers 0/2 (0%) · 0 s elapsed\n", "import tiny: finished in 0 s\n"]);
  const tty: string[] = [];
  const term = new ProgressBar("import tiny", { isTTY: true, columns: 200, write: (s: string) => tty.push(s) } as unknown as NodeJS.WritableStream, "bar");
  term.update(1, 2, "papers");
  assert.ok(tty[0].startsWith("\r\u001b[2Kimport tiny ["), tty[0]);
  assert.match(tty[0], /\[█+░+\] papers 1\/2 \(50%\)$/);
});
