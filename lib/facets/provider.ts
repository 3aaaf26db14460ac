/**
 * Which facet extractor runs: one setting, GRAFT_EXTRACTOR (offline | llm, lib/config.ts), which a
 * `--provider` flag overrides. Offline is the default: it needs no server, no key and no money.
 */
import { z } from "zod";
import { configFrom, defaultOf, type Env, EXTRACTORS } from "@/lib/config";
import type { FacetExtractor } from "./extractor";
import { createLlmExtractor } from "./llm/extract";
import { loadLlmConfig } from "./llm/config";
import { createOfflineExtractor } from "./offline/extractor";

export const EXTRACTOR_ENV = "GRAFT_EXTRACTOR";
export const PROVIDERS = EXTRACTORS;
export type ProviderName = (typeof PROVIDERS)[number];
export const DEFAULT_PROVIDER: ProviderName = defaultOf("GRAFT_EXTRACTOR");

export const providerName = z.enum(PROVIDERS, {
  error: (iss) => `unknown extractor ${JSON.stringify(iss.input)}: expected ${PROVIDERS.join(" or ")}`,
});

/**
 * The configured provider: `flag` when given, else GRAFT_EXTRACTOR (of this process, or of `env`).
 * Throws on a bad value: "--provider: …", or lib/config's ConfigError naming GRAFT_EXTRACTOR.
 */
export function resolveProvider(flag: string | undefined, env?: Env): ProviderName {
  const raw = flag?.trim();
  if (!raw) return configFrom(env).GRAFT_EXTRACTOR;
  const r = providerName.safeParse(raw);
  if (r.success) return r.data;
  throw new Error(`--provider: ${r.error.issues[0]?.message}`);
}

export interface ConfiguredExtractor {
  extractor: FacetExtractor;
  /** Extractions in flight at once by default: GRAFT_LLM_CONCURRENCY for llm; 1 offline (it is synchronous CPU work). */
  concurrency: number;
}

/** Builds the extractor a provider names; the LLM one reads and validates its GRAFT_LLM_* settings. */
export function createExtractor(provider: ProviderName, env?: Env): ConfiguredExtractor {
  if (provider === "offline") return { extractor: createOfflineExtractor(), concurrency: 1 };
  const config = loadLlmConfig(env);
  return { extractor: createLlmExtractor(config), concurrency: config.concurrency };
}
