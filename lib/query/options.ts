/**
 * zod schemas of the query pipeline's inputs: the options every caller passes (CLI flags, query
 * string, JSON body, form fields) and the JSON body of POST /api/related. Client-safe (zod and
 * constants only).
 */
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS, FACETS } from "@/lib/corpus";
import { DEFAULT_FUSION, DEFAULT_K, DEFAULT_RETRIEVER, DIRECTION_FILTERS, FUSION_NAMES, MAX_CANDIDATES, MAX_K, RETRIEVER_NAMES } from "./types";

const year = z.coerce.number().int("year must be an integer").min(1900).max(2100);

/**
 * Papers to re-rank: a list of external ids, or one string of ids separated by commas or line
 * breaks (query strings, form fields); repeats are dropped, the first occurrence keeps its place.
 */
const candidateIds = z
  .union([z.array(z.string()), z.string().transform((s) => s.split(/[,\r\n]+/))])
  .transform((ids) => [...new Set(ids.map((x) => x.trim()).filter(Boolean))])
  .pipe(
    z
      .array(z.string().max(300, "a candidate id is longer than 300 characters"))
      .min(1, "give at least one candidate id")
      .max(MAX_CANDIDATES, `at most ${MAX_CANDIDATES} candidates`),
  );

/**
 * The option fields, shared by every input shape (kept apart: a refined object cannot be
 * extended). k is checked and defaulted by `withK` on the whole object: with candidates it may be
 * up to their number and defaults to all of them.
 */
export const relatedOptionFields = {
  // Numbers, or digits from a query string or form; never a boolean or anything else coerced (`k: true` is not 1).
  k: z
    .union([z.number(), z.string().trim().regex(/^\d+$/, "k must be a whole number").transform(Number)], { error: "k must be a number" })
    .pipe(z.number().int("k must be an integer").min(1, "k must be at least 1"))
    .optional(),
  retriever: z.enum(RETRIEVER_NAMES, { error: `retriever must be one of: ${RETRIEVER_NAMES.join(", ")}` }).default(DEFAULT_RETRIEVER),
  fusion: z.enum(FUSION_NAMES, { error: `fusion must be one of: ${FUSION_NAMES.join(", ")}` }).default(DEFAULT_FUSION),
  facets: z
    .union([
      z.array(z.string()),
      z.string().transform((s) =>
        s
          .split(",")
          .map((x) => x.trim())
          .filter(Boolean),
      ),
    ])
    .pipe(z.array(z.enum(FACETS, { error: `facets must be among: ${FACETS.join(", ")}` })).min(1, "give at least one facet"))
    .transform((fs) => FACETS.filter((f) => fs.includes(f)))
    .default([...FACETS]),
  yearFrom: year.optional(),
  yearTo: year.optional(),
  venue: z.string().trim().min(1).max(300).optional(),
  /** Earlier work only, later work only, or both (RelatedPaper.direction). */
  direction: z.enum(DIRECTION_FILTERS, { error: `direction must be one of: ${DIRECTION_FILTERS.join(", ")}` }).default("both"),
  candidates: candidateIds.optional(),
};

const yearOrder = <T extends { yearFrom?: number; yearTo?: number }>(o: T) => o.yearFrom === undefined || o.yearTo === undefined || o.yearFrom <= o.yearTo;
const yearOrderError = { message: "yearFrom must not be after yearTo", path: ["yearFrom"] };

/** k at most MAX_K, or at most the number of candidates when there are more. */
const kWithin = <T extends { k?: number; candidates?: string[] }>(o: T, ctx: z.RefinementCtx) => {
  const max = Math.max(MAX_K, o.candidates?.length ?? 0);
  if (o.k !== undefined && o.k > max) {
    ctx.addIssue({ code: "custom", path: ["k"], message: o.candidates ? `k must be at most ${max} (the number of candidates)` : `k must be at most ${MAX_K}` });
  }
};
/** k as given, else every candidate, else DEFAULT_K. */
const withK = <T extends { k?: number; candidates?: string[] }>(o: T): Omit<T, "k"> & { k: number } => ({ ...o, k: o.k ?? o.candidates?.length ?? DEFAULT_K });

export const relatedOptions = z.object(relatedOptionFields).refine(yearOrder, yearOrderError).superRefine(kWithin).transform(withK);
export type RelatedOptions = z.infer<typeof relatedOptions>;

export const corpusPaperInput = z.object({ corpus: corpusName.default(DEFAULT_CORPUS), paperId: z.string().trim().min(1).max(300) });
export type CorpusPaperInput = z.infer<typeof corpusPaperInput>;

/**
 * POST /api/related JSON body: exactly one of paperId, text, paper (a paper record: title,
 * abstract, facets, …, validated by lib/input like an uploaded .json file), plus the options.
 * Unknown fields are rejected so a misspelt option is not silently ignored.
 */
export const relatedRequestBody = z
  .strictObject({
    corpus: corpusName.default(DEFAULT_CORPUS),
    paperId: z.string().trim().min(1, "paperId is empty").max(300).optional(),
    text: z.string().optional(),
    paper: z.record(z.string(), z.unknown(), { error: "paper must be a JSON object (title, abstract, facets…)" }).optional(),
    ...relatedOptionFields,
  })
  .refine((b) => [b.paperId, b.text, b.paper].filter((x) => x !== undefined).length === 1, {
    message: "give exactly one of paperId, text or paper",
    path: [],
  })
  .refine(yearOrder, yearOrderError)
  .superRefine(kWithin)
  .transform(withK);
export type RelatedRequestBody = z.infer<typeof relatedRequestBody>;

/** Multipart form fields besides `file` (strings), validated the same way. */
export const relatedFormFields = z
  .strictObject({
    corpus: corpusName.default(DEFAULT_CORPUS),
    text: z.string().optional(),
    ...relatedOptionFields,
  })
  .refine(yearOrder, yearOrderError)
  .superRefine(kWithin)
  .transform(withK);
