import type { Facet } from "@/lib/corpus";
import data from "./examples.json";

// The curated example queries of the demo and the start page (chosen by select-examples.ts;
// examples.json records how). Client-safe: a static JSON import.

export interface DemoExample {
  paperId: string;
  title: string;
  year: number | null;
  /** Facets that alone credited a fused top-10 paper when the list was made. */
  soleFacets: Facet[];
  unexpectedSoleFinds: number;
  corroborated: number;
  weakestSoleEvidence: number;
  spread: number;
}

export interface ExampleAbstract {
  id: string;
  title: string;
  year: number | null;
  abstract: string;
}

export interface DemoExamples {
  corpus: string;
  build: number;
  picked: { how: string; command: string; scanned: number; eligible: number };
  examples: DemoExample[];
  abstracts: ExampleAbstract[];
}

export const DEMO: DemoExamples = data as DemoExamples;
