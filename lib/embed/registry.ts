/**
 * Embedder selection by name: the GRAFT_EMBEDDER setting, CLI flags and worker processes all
 * go through `createEmbedder(spec)`.
 *
 *   use-lite                 Universal Sentence Encoder lite, bundled, offline (default)
 *   minilm                   all-MiniLM-L12-v2 from the hub (or its local copy; see minilm.ts)
 *   minilm:<hub id>          another hub repo, e.g. minilm:sentence-transformers/all-MiniLM-L12-v2
 *   minilm:<folder>          a local model folder (absolute, or starting with "." or "~")
 *   minilm:<model>;q8;max=256  options: weights file (fp32 | q8) and word pieces per text
 *   lsa:<folder>             an LSA model fitted by `graft fit-encoder` (lsa.ts)
 *   lsa:<folder>;fp=<hex>    the same, refusing a folder that holds another fit (the recorded id)
 *
 * An embedder id recorded in a build manifest ("use-lite@0.2.0", "minilm:<model>") is itself a
 * valid spec, so a build can re-create the embedder it was made with.
 */
import { z } from "zod";
import { configFrom, defaultOf, type Env } from "@/lib/config";
import type { Embedder } from "./types";

export const EMBEDDER_NAMES = ["use-lite", "minilm", "lsa"] as const;
export type EmbedderName = (typeof EMBEDDER_NAMES)[number];
export const DEFAULT_EMBEDDER_SPEC = defaultOf("GRAFT_EMBEDDER");

export type EmbedderSpec =
  | { name: "use-lite"; version?: string }
  | { name: "minilm"; model?: string; dtype?: "fp32" | "q8"; maxTokens?: number }
  | { name: "lsa"; folder: string; fingerprint?: string };

const USAGE = `Valid embedders: "use-lite" (default, offline), "minilm", "minilm:<hub id or local folder>", "lsa:<model folder>".`;

const specSchema = z
  .string()
  .trim()
  .transform((s, ctx): EmbedderSpec => {
    if (s === "") return { name: "use-lite" };
    const colon = s.indexOf(":");
    const head = colon < 0 ? s : s.slice(0, colon);
    const arg = colon < 0 ? undefined : s.slice(colon + 1).trim();
    const at = head.indexOf("@");
    const name = at < 0 ? head : head.slice(0, at);
    const version = at < 0 ? undefined : head.slice(at + 1);
    if (name === "use-lite") {
      if (arg !== undefined) ctx.addIssue({ code: "custom", message: `"use-lite" takes no argument (got "${s}").` });
      else if (version === "") ctx.addIssue({ code: "custom", message: `Missing version after "use-lite@".` });
      return version ? { name, version } : { name };
    }
    if (name === "minilm" && version === undefined) {
      const [model, ...opts] = (arg ?? "").split(";").map((p) => p.trim());
      if (arg !== undefined && model === "") {
        ctx.addIssue({ code: "custom", message: `"minilm:" needs a hub id or folder after the colon.` });
      }
      const spec: EmbedderSpec = model ? { name, model } : { name };
      for (const o of opts) {
        const max = /^max=(\d+)$/.exec(o);
        if (o === "fp32" || o === "q8") spec.dtype = o;
        else if (max && Number(max[1]) >= 2) spec.maxTokens = Number(max[1]);
        else ctx.addIssue({ code: "custom", message: `Unknown minilm option "${o}" (expected fp32, q8 or max=<tokens>).` });
      }
      return spec;
    }
    if (name === "lsa" && version === undefined) {
      const [folder, ...opts] = (arg ?? "").split(";").map((p) => p.trim());
      if (!folder) {
        ctx.addIssue({ code: "custom", message: `"lsa" needs its model folder: "lsa:<folder>".` });
        return z.NEVER;
      }
      const spec: EmbedderSpec = { name, folder };
      for (const o of opts) {
        const fp = /^fp=([0-9a-f]{6,64})$/.exec(o);
        if (fp) spec.fingerprint = fp[1];
        else ctx.addIssue({ code: "custom", message: `Unknown lsa option "${o}" (expected fp=<hex fingerprint>).` });
      }
      return spec;
    }
    ctx.addIssue({ code: "custom", message: `Unknown embedder "${s}".` });
    return z.NEVER;
  });

/** Parses an embedder spec; throws an Error naming the valid choices. */
export function parseEmbedderSpec(spec: string): EmbedderSpec {
  const r = specSchema.safeParse(spec);
  if (!r.success) throw new Error(`${r.error.issues.map((i) => i.message).join(" ")} ${USAGE}`);
  return r.data;
}

/** The configured spec: GRAFT_EMBEDDER (lib/config.ts, default "use-lite"), of this process or of `env`. */
export function embedderSpecFromEnv(env?: Env): string {
  return configFrom(env).GRAFT_EMBEDDER;
}

/** Loads the embedder a spec names (default: the GRAFT_EMBEDDER setting). */
export async function createEmbedder(spec: string = embedderSpecFromEnv()): Promise<Embedder> {
  const parsed = parseEmbedderSpec(spec);
  if (parsed.name === "use-lite") {
    const { createUseLiteEmbedder, USE_LITE_ID } = await import("./use-lite");
    // A manifest made with another model version must not silently get today's vectors.
    if (parsed.version && `use-lite@${parsed.version}` !== USE_LITE_ID) {
      throw new Error(`Embedder "${spec}" is not installed: this build has ${USE_LITE_ID}.`);
    }
    return createUseLiteEmbedder();
  }
  if (parsed.name === "lsa") {
    const { createLsaEmbedder } = await import("./lsa");
    return createLsaEmbedder(parsed.folder, parsed.fingerprint);
  }
  const { createMiniLmEmbedder } = await import("./minilm");
  return createMiniLmEmbedder({ model: parsed.model, dtype: parsed.dtype, maxTokens: parsed.maxTokens });
}
