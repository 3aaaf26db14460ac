import type { Facet } from "@/lib/corpus";

/** One-letter facet labels for terminal output (the web app uses the same letters). */
export const FACET_LETTERS: Record<Facet, string> = { problems: "P", methods: "M", results: "R", contributions: "C" };
