import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, describe, it } from "node:test";
import { describeExit, startWorker, workerExecArgv, type WorkerHandle, type WorkerMode } from "./worker-pool";

type In = { type: "echo"; value: string } | { type: "exit"; code: number } | { type: "throw"; message: string };
type Out = { echo: string; execArgv: string[]; thread: boolean };

// A worker entry written per run: answers an echo with its own Node flags, exits or throws on request.
const dir = mkdtempSync(path.join(os.tmpdir(), "graft-worker-pool-"));
after(() => rmSync(dir, { recursive: true, force: true }));
// .mts: an ES module outside the repository (no package.json "type" there).
const ENTRY = path.join(dir, "echo-worker.mts");
writeFileSync(
  ENTRY,
  `import { parentPort } from "node:worker_threads";
const reply = (m: unknown) => (parentPort ? parentPort.postMessage(m) : process.send?.(m));
const onMessage = (f: (m: any) => void) => (parentPort ? parentPort.on("message", f) : process.on("message", f));
onMessage((m) => {
  if (m.type === "echo") reply({ echo: m.value, execArgv: process.execArgv, thread: parentPort !== null });
  if (m.type === "exit") process.exit(m.code);
  if (m.type === "throw") throw new Error(m.message);
});
`,
);

interface Started {
  handle: WorkerHandle<In>;
  next(): Promise<Out>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null; error: Error | null }>;
}

function start(mode: WorkerMode): Started {
  const inbox: Out[] = [];
  let wake: (() => void) | null = null;
  let onExit!: (e: { code: number | null; signal: NodeJS.Signals | null; error: Error | null }) => void;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null; error: Error | null }>((resolve) => (onExit = resolve));
  const handle = startWorker<In, Out>(ENTRY, mode, {
    message: (msg) => {
      inbox.push(msg);
      wake?.();
    },
    exit: (code, signal, error) => onExit({ code, signal, error }),
  });
  const next = async (): Promise<Out> => {
    while (inbox.length === 0) await new Promise<void>((resolve) => (wake = resolve));
    return inbox.shift() as Out;
  };
  return { handle, next, exited };
}

describe("workerExecArgv", () => {
  it("drops the session flags with their separate values and keeps the rest", () => {
    const parent = [
      "--max-old-space-size=4096",
      "--test",
      "--test-reporter",
      "spec",
      "--inspect=9229",
      "--cpu-prof",
      "--cpu-prof-dir",
      "/tmp/p",
      "--watch",
      "--heap-prof",
      "--import",
      "tsx",
    ];
    assert.deepEqual(workerExecArgv(parent), ["--max-old-space-size=4096", "--import", "tsx"]);
  });

  it("adds the tsx loader when the parent was not started through it", () => {
    const args = workerExecArgv(["--conditions=react-server"]);
    assert.equal(args[0], "--conditions=react-server");
    assert.equal(args[1], "--import");
    assert.match(args[2], /tsx/);
    assert.equal(args.length, 3);
  });
});

describe("startWorker", () => {
  for (const mode of ["thread", "process"] as const) {
    it(`a ${mode}: messages both ways, the session-free flags, and its exit code`, async () => {
      const w = start(mode);
      assert.match(w.handle.label, mode === "thread" ? /^thread \d+$/ : /^pid \d+$/);
      w.handle.send({ type: "echo", value: "hello" });
      const reply = await w.next();
      assert.equal(reply.echo, "hello");
      assert.equal(reply.thread, mode === "thread");
      assert.ok(
        reply.execArgv.every((a) => !/^--(test|inspect|watch|cpu-prof|heap-prof)/.test(a)),
        reply.execArgv.join(" "),
      );
      w.handle.send({ type: "exit", code: 7 });
      const gone = await w.exited;
      assert.equal(gone.code, 7);
      assert.equal(describeExit(gone.code, gone.signal, gone.error), "exited with code 7");
      w.handle.send({ type: "echo", value: "after exit" }); // a no-op, not a throw
      await w.handle.stop(); // already gone: resolves
    });
  }

  it("stop() kills a process by SIGKILL and resolves once it is gone", async () => {
    const w = start("process");
    w.handle.send({ type: "echo", value: "up" });
    await w.next();
    await w.handle.stop();
    const gone = await w.exited;
    assert.equal(gone.signal, "SIGKILL");
    assert.equal(describeExit(gone.code, gone.signal, gone.error), "was killed by SIGKILL");
  });

  it("a thread's uncaught error is reported with its exit", async () => {
    const w = start("thread");
    w.handle.send({ type: "throw", message: "boom" });
    const gone = await w.exited;
    assert.equal(gone.code, 1);
    assert.equal(gone.error?.message, "boom");
    assert.equal(describeExit(gone.code, gone.signal, gone.error), "exited with code 1: boom");
  });
});
