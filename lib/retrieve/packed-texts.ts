/**
 * Many strings held as one UTF-8 buffer and their end offsets, decoded when read. A served 64k
 * build's item texts (339,757) and abstracts (63,671) as JS strings were ≈ 160 MiB of V8 heap,
 * which V8 then let grow by a multiple of under queries; outside the heap they are their bytes.
 * Read for the few papers a query returns or scores, so decoding on demand costs little.
 */

// String.prototype.isWellFormed (Node 20+), outside the ES2023 lib this project compiles against.
const isWellFormed = (s: string): boolean => (s as string & { isWellFormed(): boolean }).isWellFormed();

/** Builds a PackedTexts by appending strings in order. */
export class PackedTextsBuilder {
  // Filled chunks, each trimmed to its bytes; a text never spans two. Chunks rather than one
  // growing buffer: no doubling copies and no final copy while the texts are packed.
  private readonly chunks: Buffer[] = [];
  private chunk = Buffer.allocUnsafe(0);
  private chunkUsed = 0;
  private ends = new Float64Array(1024);
  private count = 0;
  private used = 0;
  // Strings UTF-8 cannot carry (lone surrogates) are kept as strings, so every text reads back exact.
  private readonly irregular = new Map<number, string>();

  push(text: string): void {
    if (!isWellFormed(text)) this.irregular.set(this.count, text);
    else {
      const need = Buffer.byteLength(text, "utf8");
      if (this.chunkUsed + need > this.chunk.length) {
        this.seal();
        this.chunk = Buffer.allocUnsafe(Math.max(CHUNK_BYTES, need));
      }
      const wrote = this.chunk.write(text, this.chunkUsed, "utf8");
      this.chunkUsed += wrote;
      this.used += wrote;
    }
    if (this.count === this.ends.length) {
      const grown = new Float64Array(this.count * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.count++] = this.used;
  }

  finish(): PackedTexts {
    this.seal();
    return new PackedTexts(this.chunks.splice(0), this.ends.slice(0, this.count), this.irregular);
  }

  private seal(): void {
    if (this.chunkUsed > 0) this.chunks.push(this.chunk.subarray(0, this.chunkUsed));
    this.chunk = Buffer.allocUnsafe(0);
    this.chunkUsed = 0;
  }
}
const CHUNK_BYTES = 4 << 20;

export class PackedTexts {
  /** chunkEnds[c]: the (global) byte where chunk c ends. */
  private readonly chunkEnds: Float64Array;

  constructor(
    private readonly chunks: readonly Buffer[],
    /** ends[i]: the byte, counted over the chunks in order, where text i ends (it starts where text i − 1 ends). */
    private readonly ends: Float64Array,
    private readonly irregular: ReadonlyMap<number, string> = new Map(),
  ) {
    this.chunkEnds = new Float64Array(chunks.length);
    let at = 0;
    chunks.forEach((c, i) => (this.chunkEnds[i] = at += c.length));
  }

  static from(texts: Iterable<string>): PackedTexts {
    const b = new PackedTextsBuilder();
    for (const t of texts) b.push(t);
    return b.finish();
  }

  get length(): number {
    return this.ends.length;
  }

  /** Bytes held (the UTF-8 chunks and the offsets). */
  get byteLength(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0) + this.ends.byteLength;
  }

  /** Text i ("" outside 0 .. length − 1, as an unset slot of a string array reads). */
  at(i: number): string {
    if (!(i >= 0 && i < this.ends.length)) return "";
    if (this.irregular.size > 0) {
      const s = this.irregular.get(i);
      if (s !== undefined) return s;
    }
    const start = i === 0 ? 0 : this.ends[i - 1];
    const end = this.ends[i];
    if (end === start) return "";
    // The chunk holding the text: the first that ends at or after its end.
    let lo = 0;
    let hi = this.chunkEnds.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.chunkEnds[mid] >= end) hi = mid;
      else lo = mid + 1;
    }
    const base = lo === 0 ? 0 : this.chunkEnds[lo - 1];
    return this.chunks[lo].toString("utf8", start - base, end - base);
  }

  /** Texts from .. to − 1, as Array.prototype.slice reads them. */
  slice(from: number, to: number): string[] {
    const out: string[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.ends.length); i++) out.push(this.at(i));
    return out;
  }
}
