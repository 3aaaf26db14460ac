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
      "./schema_engine_bg.js": bg as unknown as WebAssembly.ModuleImports,
    });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg.SchemaEngine as unknown as typeof SchemaEngine;
  })();
  return loaded;
}
