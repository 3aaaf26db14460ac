import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { type Agent, request } from "node:http";
import path from "node:path";
import { repoRoot } from "@/lib/paths";

// Tests only: scripts/server.mjs's front process in front of a stand-in backend
// (stand-in-backend.fixture.mjs), and plain requests to it, timed from the send.

export const SERVER = path.join(repoRoot, "scripts/server.mjs");
export const STAND_IN = path.join(repoRoot, "lib/http/stand-in-backend.fixture.mjs");

export interface Running {
  proc: ChildProcess;
  /** The port of each "Graft is serving on" line so far (one per start of the front). */
  ports: number[];
  /** What it wrote to stdout so far (the stand-in backend's lines too). */
  stdout: string[];
  /** What it wrote to stderr so far. */
  stderr: string[];
  exited: Promise<[number | null, NodeJS.Signals | null]>;
}

/** Runs `args` (node scripts/server.mjs … or bash scripts/serve.sh -- …), collecting the ports it serves on. */
export function run(command: string, args: string[], env: Record<string, string> = {}): Running {
  const proc = spawn(command, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
  const ports: number[] = [];
  const stdout: string[] = [];
  proc.stdout?.setEncoding("utf8").on("data", (text: string) => {
    stdout.push(text);
    for (const m of text.matchAll(/Graft is serving on http:\/\/[^:]+:(\d+)/g)) ports.push(Number(m[1]));
  });
  const stderr: string[] = [];
  proc.stderr?.setEncoding("utf8").on("data", (text: string) => stderr.push(text));
  return { proc, ports, stdout, stderr, exited: once(proc, "exit") as Promise<[number | null, NodeJS.Signals | null]> };
}

/** The front on a free loopback port with the stand-in behind it (`backendArgs`: its options, e.g. --work-ms). */
export async function startFront(backendArgs: string[] = [], env: Record<string, string> = {}): Promise<Running & { port: number }> {
  const front = run(process.execPath, [SERVER, "-p", "0", "-H", "127.0.0.1", "--backend", STAND_IN, "--", ...backendArgs], env);
  await until(() => front.ports.length > 0 || front.proc.exitCode !== null);
  if (front.ports.length === 0) throw new Error(`the front exited with status ${front.proc.exitCode} before serving`);
  return { ...front, port: front.ports[0] };
}

export async function until(cond: () => boolean): Promise<void> {
  while (!cond()) await new Promise((resolve) => setTimeout(resolve, 20));
}

export interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  /** From the send to the last byte. */
  ms: number;
}

/** One request, on a connection of its own unless `agent` is given. */
export function send(
  port: number,
  method: string,
  urlPath: string,
  body = "",
  headers: Record<string, string> = {},
  agent: Agent | false = false,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const t = performance.now();
    const req = request({ host: "127.0.0.1", port, method, path: urlPath, headers, agent }, (res) => {
      let text = "";
      res.setEncoding("utf8").on("data", (chunk: string) => (text += chunk));
      res.once("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, ms: performance.now() - t }));
      res.once("error", reject);
    });
    req.once("error", reject);
    req.end(body);
  });
}

export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
