/**
 * A Python trainer (workers/trainer) as a child process: Graft's Node side hands it a folder of
 * flat files and reads its progress back as JSON lines on stdout, the last one {"event": "done"}.
 * Shared by the generative retriever's decoder (lib/genret) and the contrastive text encoder
 * (lib/embed/contrastive.ts).
 */
import { spawn } from "node:child_process";

/** Runs the Python trainer, forwarding its JSON-lines progress; resolves with its final record. */
export function runTrainer(
  python: string,
  args: string[],
  onEvent: (e: Record<string, unknown>) => void,
  onLog: (line: string) => void = () => {},
): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const child = spawn(python, args, {
      env: { ...process.env, OPENBLAS_NUM_THREADS: process.env.OPENBLAS_NUM_THREADS ?? "2" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let done: Record<string, unknown> | null = null;
    let buf = "";
    const stderr: string[] = [];
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      buf += chunk;
      let nl;
      while ((nl = buf.indexOf("\n")) >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        try {
          const e = JSON.parse(line) as Record<string, unknown>;
          if (e.event === "done") done = e;
          onEvent(e);
        } catch {
          onLog(line);
        }
      }
    });
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
      for (const line of chunk.split("\n")) {
        if (!line.trim() || /TracerWarning|scores = q @ k/.test(line)) continue;
        stderr.push(line);
        if (stderr.length > 40) stderr.shift();
        onLog(line);
      }
    });
    child.on("error", (err) =>
      reject(
        new Error(
          `could not start the trainer with ${python} (${err.message}); install PyTorch: apt-get install python3-torch python3-onnx libopenblas0-pthread, or set GRAFT_PYTHON`,
        ),
      ),
    );
    child.on("close", (code) => {
      if (code === 0 && done) resolve(done);
      else reject(new Error(`the trainer exited with code ${code}:\n${stderr.slice(-15).join("\n")}`));
    });
  });
}
