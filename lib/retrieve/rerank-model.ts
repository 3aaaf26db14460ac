/**
 * The default retriever's saved second stage (./rerank.ts): weights are data, so they live at the
 * repository root in models/rerank-default/model.json (written by `npm run train:rerank -- --write`;
 * its `command` and `training` fields say how), and this reads them through one schema.
 *
 * A static JSON import, not a file read: the server bundle carries the model (no path to resolve
 * or file to trace into `next build`'s output) and it is parsed once when the retriever loads,
 * before the first query, which then pays nothing for it (the file is 26 kB). The browser never
 * loads it (lint/light-bundles.test.ts).
 */
import { z } from "zod";
import saved from "@/models/rerank-default/model.json";
import type { RerankModel } from "./rerank";
import { RetrievalError } from "./retriever";

export const RERANK_FORMAT = "graft-rerank";
export const RERANK_VERSION = 1;
/** Where the shipped model lives, for messages (the import above is what reads it). */
export const RERANK_MODEL_FILE = "models/rerank-default/model.json";

const numbers = z.array(z.number());

// The features are the saved model's own schema, matched by name when it scores (columnsOf in
// ./rerank.ts): a model fitted on fewer or older features still reads today's rows.
const modelSchema = z
  .object({
    format: z.literal(RERANK_FORMAT),
    version: z.literal(RERANK_VERSION),
    /** The command that wrote it, and how it was trained (provenance; not read when scoring). */
    command: z.string().optional(),
    training: z.string().optional(),
    features: z.array(z.string()).min(1),
    mean: numbers,
    scale: z.array(z.number().positive()),
    weights: numbers,
    bias: z.number(),
    depth: z.number().int().positive(),
    hidden: z.object({ weights: z.array(numbers), bias: numbers, out: numbers }).optional(),
  })
  .superRefine((m, ctx) => {
    const n = m.features.length;
    const rows = [m.mean, m.scale, m.weights, ...(m.hidden?.weights ?? [])];
    if (rows.some((xs) => xs.length !== n)) ctx.addIssue({ code: "custom", message: `every weight row must have one value per feature (${n})` });
    const units = m.hidden;
    if (units && (units.bias.length !== units.weights.length || units.out.length !== units.weights.length))
      ctx.addIssue({ code: "custom", message: "the hidden layer's weights, bias and out must have one entry per unit" });
  });

/** A saved model checked against the schema; `source` names it in the error (the file it came from). */
export function parseRerankModel(json: unknown, source: string = RERANK_MODEL_FILE): RerankModel {
  const parsed = modelSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new RetrievalError(
      "not_ready",
      `${source} is not a ${RERANK_FORMAT} v${RERANK_VERSION} model (${issue?.path.join(".") || "top level"}: ${issue?.message}): write one with \`npm run train:rerank -- --write\``,
    );
  }
  const { features, mean, scale, weights, bias, depth, hidden } = parsed.data;
  return { features, mean, scale, weights, bias, depth, ...(hidden ? { hidden } : {}) };
}

/** The shipped model (models/rerank-default/model.json). */
export const RERANK_MODEL: RerankModel = parseRerankModel(saved);
