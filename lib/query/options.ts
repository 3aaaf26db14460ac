/**
 * zod schemas of the query pipeline's inputs: the options every caller passes (CLI flags, query
 * string, JSON body, form fields) and the JSON body of POST /api/related. Client-safe (zod and
 * constants only).
 */
import { z } from "zod";
import { corpusName, DEFAULT_CORPUS } from "@/lib/corpus/browse";
import { FACETS } from "@/lib/corpus/types";
import { DEFAULT_FUSION, DEFAULT_K, DEFAULT_RETRIEVER, FUSION_NAMES, MAX_K, RETRIEVER_NAMES } from "./types";

const year = z.coerce.number().int("year must be an integer").min(1900).max(2100);

/** The option fields, shared by every input shape (kept apart: a refined object cannot be extended). */
export const relatedOptionFields = {
  k: z.coerce.number().int("k must be an integer").min(1, "k must be at least 1").max(MAX_K, `k must be at most ${MAX_K}`).default(DEFAULT_K),
  retriever: z.enum(RETRIEVER_NAMES, { error: `retriever must be one of: ${RETRIEVER_NAMES.join(", ")}` }).default(DEFAULT_RETRIEVER),
  fusion: z.enum(FUSION_NAMES, { error: `fusion must be one of: ${FUSION_NAMES.join(", ")}` }).default(DEFAULT_FUSION),
  facets: z
    .union([z.array(z.string()), z.string().transform((s) => s.split(",").map((x) => x.trim()).filter(Boolean))])
    .pipe(z.array(z.enum(FACETS, { error: `facets must be among: ${FACETS.join(", ")}` })).min(1, "give at least one facet"))
    .transform((fs) => FACETS.filter((f) => fs.includes(f)))
    .default([...FACETS]),
  yearFrom: year.optional(),
  yearTo: year.optional(),
  venue: z.string().trim().min(1).max(300).optional(),
};

const yearOrder = <T extends { yearFrom?: number; yearTo?: number }>(o: T) => o.yearFrom === undefined || o.yearTo === undefined || o.yearFrom <= o.yearTo;
const yearOrderError = { message: "yearFrom must not be after yearTo", path: ["yearFrom"] };

export const relatedOptions = z.object(relatedOptionFields).refine(yearOrder, yearOrderError);
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
  .refine(yearOrder, yearOrderError);
export type RelatedRequestBody = z.infer<typeof relatedRequestBody>;

/** Multipart form fields besides `file` (strings), validated the same way. */
export const relatedFormFields = z
  .strictObject({
    corpus: corpusName.default(DEFAULT_CORPUS),
    text: z.string().optional(),
    ...relatedOptionFields,
  })
  .refine(yearOrder, yearOrderError);
