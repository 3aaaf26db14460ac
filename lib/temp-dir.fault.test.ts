import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { makeTempDir } from "./temp-dir";

// Issue 28, finding 8: a process killed during an upload leaves its temp copy; the next temp
// folder made removes every folder whose owning process is gone, and only those.

describe("temp folders left by killed processes are removed", () => {
  const root = mkdtempSync(path.join(os.tmpdir(), "graft-tmp-test-"));
  after(() => rmSync(root, { recursive: true, force: true }));

  test("a dead process's folder goes, a live one's stays, the new one is this process's", () => {
    // A process that has exited: its pid is free (the kernel does not reuse it this soon).
    const dead = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
    const deadPid = Number(dead.stdout);
    assert.ok(deadPid > 0);
    const stale = path.join(root, `graft-import-${deadPid}-Ab12Cd`);
    mkdirSync(stale);
    writeFileSync(path.join(stale, "papers.jsonl"), Buffer.alloc(1 << 20));
    const live = path.join(root, `graft-import-${process.pid}-Zz99Yy`);
    mkdirSync(live);

    const made = makeTempDir("graft-library", root);
    assert.equal(existsSync(stale), false, "the killed upload's copy is gone");
    assert.equal(existsSync(live), true, "a running process's folder is kept");
    assert.match(path.basename(made), new RegExp(`^graft-library-${process.pid}-`));
  });
});
