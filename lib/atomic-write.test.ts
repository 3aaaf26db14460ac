import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { after, test } from "node:test";
import { atomicTempFile, writeFileAtomic } from "./atomic-write";
import { repoRoot } from "./paths";

const dir = mkdtempSync(path.join(os.tmpdir(), "graft-atomic-"));
after(() => rmSync(dir, { recursive: true, force: true }));

test("writes a new file and replaces an old one, leaving no temporary file", () => {
  const file = path.join(dir, "a.json");
  writeFileAtomic(file, "first\n");
  assert.equal(readFileSync(file, "utf8"), "first\n");
  writeFileAtomic(file, Uint8Array.of(1, 2, 3));
  assert.deepEqual([...readFileSync(file)], [1, 2, 3]);
  writeFileAtomic(file, "durable\n", { durable: true });
  assert.equal(readFileSync(file, "utf8"), "durable\n");
  assert.deepEqual(
    readdirSync(dir).filter((f) => f.startsWith("a.json")),
    ["a.json"],
  );
});

test("a failed write throws and leaves no temporary file", () => {
  // Renaming a file over a (non-empty) directory fails after the temporary file was written.
  const target = mkdtempSync(path.join(dir, "dir-"));
  writeFileSync(path.join(target, "inside"), "x");
  assert.throws(() => writeFileAtomic(target, "new"));
  assert.equal(existsSync(atomicTempFile(target)), false);
  assert.equal(readFileSync(path.join(target, "inside"), "utf8"), "x");
  // A missing directory fails before anything is written.
  assert.throws(() => writeFileAtomic(path.join(dir, "missing", "f"), "new"), /ENOENT/);
});

test("the temporary name is one that resuming a build removes", () => {
  assert.match(path.basename(atomicTempFile("/x/manifest.json")), /\.\d+\.tmp$/);
});

test("no other file of lib/ renames files itself: atomic writes go through lib/atomic-write.ts", () => {
  const offenders: string[] = [];
  const walk = (rel: string) => {
    for (const entry of readdirSync(path.join(repoRoot, rel), { withFileTypes: true })) {
      const child = path.join(rel, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== "generated" && entry.name !== "node_modules") walk(child);
      } else if (/\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) && child !== path.join("lib", "atomic-write.ts")) {
        if (/\brenameSync\s*\(|\brename\s*\(/.test(readFileSync(path.join(repoRoot, child), "utf8"))) offenders.push(child);
      }
    }
  };
  walk("lib");
  assert.deepEqual(offenders, []);
});
