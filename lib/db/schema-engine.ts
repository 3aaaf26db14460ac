import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import * as bg from "@prisma/schema-engine-wasm/schema_engine_bg";
import type { SchemaEngine } from "@prisma/schema-engine-wasm";

// The package is built for bundlers (`import * as wasm from "./x.wasm"`), which plain Node
// cannot import; instantiate the module by hand with the JS glue as its import object.
let loaded: Promise<typeof SchemaEngine> | undefined;

export function loadSchemaEngine(): Promise<typeof SchemaEngine> {
  loaded ??= (async () => {
    // The .wasm is not in the package's "exports": resolve the glue file and look beside it.
    const require = createRequire(import.meta.url);
    const wasmPath = path.join(path.dirname(require.resolve("@prisma/schema-engine-wasm/schema_engine_bg")), "schema_engine_bg.wasm");
    const { instance } = await WebAssembly.instantiate(await readFile(wasmPath), {
      "./schema_engine_bg.js": { ...(bg as unknown as WebAssembly.ModuleImports), ...unrefTimers() },
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg.SchemaEngine as unknown as typeof SchemaEngine;
  })();
  return loaded;
}

/**
 * The engine's timers, not holding the process open: on PostgreSQL it leaves a 10 s timer
 * behind after a migration (freed or not), so every process that migrated (`graft db migrate`,
 * each integration test file) lingered 10 s before exiting. migrate.ts keeps the process alive
 * itself while the engine works.
 */
function unrefTimers(): WebAssembly.ModuleImports {
  const names = Object.keys(bg).filter((k) => k.startsWith("__wbg_setTimeout_"));
  return Object.fromEntries(
    names.map((name) => [
      name,
      (fn: () => void, ms: number) => {
        const timer = setTimeout(fn, ms >>> 0);
        timer.unref();
        return timer;
      },
    ]),
  );
}
