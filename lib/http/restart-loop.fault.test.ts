import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, test } from "node:test";
import { repoRoot } from "@/lib/paths";

// Issue 28: the documented way to run the server (scripts/demo.sh → scripts/serve.sh) starts it
// again when it dies, and SIGTERM / Ctrl-C still stop it.

const dir = mkdtempSync(path.join(os.tmpdir(), "graft-serve-"));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A stand-in server: logs its pid; the first start crashes, later ones keep running. */
const SERVER = `
const fs = require("node:fs");
const log = process.argv[1];
const starts = fs.existsSync(log) ? fs.readFileSync(log, "utf8").split("\\n").filter(Boolean).length : 0;
fs.appendFileSync(log, process.pid + "\\n");
if (starts === 0) process.exit(1);
setInterval(() => {}, 1000);
`;

const pidsIn = (log: string) => readFileSync(log, { encoding: "utf8", flag: "a+" }).split("\n").filter(Boolean).map(Number);

async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((resolve) => setTimeout(resolve, 50));
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("scripts/serve.sh", () => {
  for (const signal of ["SIGTERM", "SIGINT"] as const)
    test(`restarts a server that exits, and ${signal} stops both`, async () => {
      const log = path.join(dir, `${signal}.log`);
      writeFileSync(log, "");
      const loop = spawn("bash", [path.join(repoRoot, "scripts/serve.sh"), "--", process.execPath, "-e", SERVER, log], { stdio: "ignore" });
      const exited = once(loop, "exit");
      await until(() => pidsIn(log).length === 2);
      const [, second] = pidsIn(log);
      assert.ok(alive(second), "the restarted server runs");
      loop.kill(signal);
      await exited;
      await until(() => !alive(second));
      assert.equal(pidsIn(log).length, 2, "no restart after the stop signal");
    });
});
