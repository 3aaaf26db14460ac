#!/usr/bin/env node
// `graft` on PATH (npm link / npx graft): runs the TypeScript CLI through tsx.
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const tsx = createRequire(import.meta.url).resolve("tsx/cli");
const r = spawnSync(process.execPath, [tsx, path.join(root, "lib/cli/main.ts"), ...process.argv.slice(2)], { stdio: "inherit" });
process.exit(r.status ?? 1);
