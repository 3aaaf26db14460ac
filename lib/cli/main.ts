#!/usr/bin/env node
// The `graft` command's entry point: the program itself is in program.ts.
import { main } from "./program";

process.exitCode = await main(process.argv.slice(2));
