/**
 * Torch vs onnxruntime on one exported decoder: export.py writes export-check.json (a fixed
 * decoding path with beam reorders, items of different lengths, and torch's final hidden
 * states on it); this replays the path through the Node decoding session and reports the
 * largest differences. A `tokens` model's export writes the file; a vector model has none.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import { OnnxDecoder, type DecoderConfig } from "./onnx-session";
import { buildTrie } from "./trie";
import { PAD } from "./vocab";

export const EXPORT_CHECK_FILE = "export-check.json";

interface ExportCheck {
  facet: number[];
  words: number[][];
  parents: number[][];
  tokens: number[][];
  /** Hidden states after the prefill, rows concatenated. */
  first: number[];
  /** Hidden states after the last step. */
  last: number[];
}

/** Largest absolute difference between torch's and onnxruntime's hidden states, after the prefill and after the last step. */
export async function exportCheckDifference(dir: string): Promise<{ first: number; last: number; steps: number }> {
  const { config } = JSON.parse(readFileSync(path.join(dir, "config.json"), "utf8")) as { config: DecoderConfig };
  const check = JSON.parse(readFileSync(path.join(dir, EXPORT_CHECK_FILE), "utf8")) as ExportCheck;
  const decoder = await OnnxDecoder.load(path.join(dir, "decoder.onnx"), config);
  try {
    const session = decoder.open();
    const trie = buildTrie([[2]]);
    const n = check.facet.length;
    await session.start(
      check.facet.map((facet, i) => ({ query: new Float32Array(0), words: Int32Array.from(check.words[i].filter((t) => t !== PAD)), facet, trie })),
    );
    const diff = (want: number[]): number => {
      let worst = 0;
      for (let r = 0; r < n; r++) {
        const got = session.hiddenState(r);
        for (let k = 0; k < config.d; k++) worst = Math.max(worst, Math.abs(got[k] - want[r * config.d + k]));
      }
      return worst;
    };
    const first = diff(check.first);
    for (let k = 0; k < check.tokens.length; k++) await session.next(Int32Array.from(check.parents[k]), Int32Array.from(check.tokens[k]));
    return { first, last: diff(check.last), steps: check.tokens.length };
  } finally {
    await decoder.close();
  }
}
