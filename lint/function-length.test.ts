// The function-length rule (eslint.config.mjs, issue 30) through ESLint's Node API and the
// project's own config: a function over 100 lines of code fails `npx eslint .`, blank and
// comment lines do not count, tests are exempt, and every exception in the sources says why.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ESLint } from "eslint";

const root = path.resolve(import.meta.dirname, "..");
const eslint = new ESLint({ cwd: root, overrideConfigFile: path.join(root, "eslint.config.mjs") });
const RULE = "max-lines-per-function";

/** A function whose body has `statements` lines of code, each followed by `padding` (blank or comment lines). */
function longFunction(statements: number, padding = ""): string {
  const body = Array.from({ length: statements }, (_, i) => `  total += ${i};${padding}`).join("\n");
  return `export function long(): number {\n  let total = 0;\n${body}\n  return total;\n}\n`;
}

async function ruleHits(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result.messages.filter((m) => m.ruleId === RULE).map((m) => m.message);
}

describe("function length rule", () => {
  it("rejects a function of 101 lines of code and accepts one of 100", async () => {
    // The function's own lines: signature, `let`, the statements, `return`, closing brace.
    const over = await ruleHits("lib/graph/length-probe.ts", longFunction(97));
    assert.equal(over.length, 1, JSON.stringify(over));
    assert.match(over[0], /too many lines \(101\)/);
    assert.deepEqual(await ruleHits("lib/graph/length-probe.ts", longFunction(96)), []);
  });

  it("does not count blank lines or comments, and applies to components and scripts too", async () => {
    assert.deepEqual(await ruleHits("lib/graph/length-probe.ts", longFunction(96, "\n\n  // why\n")), []);
    assert.equal((await ruleHits("components/length-probe.tsx", longFunction(97))).length, 1);
    assert.equal((await ruleHits("scripts/length-probe.ts", longFunction(97))).length, 1);
  });

  it("exempts tests, and honours an exception on the line above", async () => {
    assert.deepEqual(await ruleHits("lib/graph/length-probe.test.ts", longFunction(200)), []);
    const excused = `// eslint-disable-next-line ${RULE} -- a declarative table\n${longFunction(200)}`;
    assert.deepEqual(await ruleHits("lib/graph/length-probe.ts", excused), []);
  });

  it("every exception in the sources states its reason", () => {
    const unexplained: string[] = [];
    let exceptions = 0;
    const walk = (dir: string): void => {
      for (const e of readdirSync(path.join(root, dir), { withFileTypes: true })) {
        const rel = path.join(dir, e.name);
        if (e.isDirectory()) {
          if (e.name !== "node_modules" && e.name !== "generated") walk(rel);
        } else if (/\.(ts|tsx|mjs|js)$/.test(e.name)) {
          readFileSync(path.join(root, rel), "utf8")
            .split("\n")
            .forEach((line, i) => {
              if (!line.includes(`eslint-disable`) || !line.includes(RULE)) return;
              exceptions++;
              // The reason follows " -- " and says something.
              if (!/ -- \S.{9,}/.test(line)) unexplained.push(`${rel}:${i + 1}`);
            });
        }
      }
    };
    for (const dir of ["lib", "app", "components", "scripts", "workers", "bin"]) walk(dir);
    assert.ok(exceptions > 0, "the scan found no exception at all: it is looking in the wrong place");
    assert.deepEqual(unexplained, []);
  });
});
