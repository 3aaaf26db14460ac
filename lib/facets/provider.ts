/**
 * Which facet extractor runs: one setting, env GRAFT_EXTRACTOR (offline | llm), which a
 * `--provider` flag overrides. Offline is the default: it needs no server, no key and no money.
 */
import { z } from "zod";
import type { FacetExtractor } from "./extractor";
import { createLlmExtractor } from "./llm/extract";
import { loadLlmConfig } from "./llm/config";
import { createOfflineExtractor } from "./offline/extractor";

export const EXTRACTOR_ENV = "GRAFT_EXTRACTOR";
export const PROVIDERS = ["offline", "llm"] as const;
export type ProviderName = (typeof PROVIDERS)[number];
export const DEFAULT_PROVIDER: ProviderName = "offline";

export const providerName = z.enum(PROVIDERS, {
  error: (iss) => `unknown extractor ${JSON.stringify(iss.input)}: expected ${PROVIDERS.join(" or ")}`,
});

type Env = Readonly<Record<string, string | undefined>>;

/** The configured provider: `flag` when given, else GRAFT_EXTRACTOR, else offline. Throws on a bad value. */
export function resolveProvider(flag: string | undefined, env: Env = process.env): ProviderName {
  const fromEnv = env[EXTRACTOR_ENV]?.trim();
  const raw = flag?.trim() || fromEnv || DEFAULT_PROVIDER;
  const r = providerName.safeParse(raw);
  if (r.success) return r.data;
  const where = flag?.trim() ? "--provider" : EXTRACTOR_ENV;
  throw new Error(`${where}: ${r.error.issues[0]?.message}`);
}

export interface ConfiguredExtractor {
  extractor: FacetExtractor;
  /** Extractions in flight at once by default: GRAFT_LLM_CONCURRENCY for llm; 1 offline (it is synchronous CPU work). */
  concurrency: number;
}

/** Builds the extractor a provider names; the LLM one reads and validates its GRAFT_LLM_* settings. */
export function createExtractor(provider: ProviderName, env: Env = process.env): ConfiguredExtractor {
  if (provider === "offline") return { extractor: createOfflineExtractor(), concurrency: 1 };
  const config = loadLlmConfig(env as Record<string, string | undefined>);
  return { extractor: createLlmExtractor(config), concurrency: config.concurrency };
}
