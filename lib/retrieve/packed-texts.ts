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
  private bytes = Buffer.allocUnsafe(1 << 16);
  private ends = new Float64Array(1024);
  private count = 0;
  private used = 0;
  // Strings UTF-8 cannot carry (lone surrogates) are kept as strings, so every text reads back exact.
  private readonly irregular = new Map<number, string>();

  push(text: string): void {
    if (!isWellFormed(text)) this.irregular.set(this.count, text);
    else {
      const need = Buffer.byteLength(text, "utf8");
      if (this.used + need > this.bytes.length) {
        const grown = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.used + need));
        this.bytes.copy(grown, 0, 0, this.used);
        this.bytes = grown;
      }
      this.used += this.bytes.write(text, this.used, "utf8");
    }
    if (this.count === this.ends.length) {
      const grown = new Float64Array(this.count * 2);
      grown.set(this.ends);
      this.ends = grown;
    }
    this.ends[this.count++] = this.used;
  }

  /** The packed texts, in exactly-sized arrays (the builder's slack is let go). */
  finish(): PackedTexts {
    return new PackedTexts(Buffer.from(this.bytes.subarray(0, this.used)), this.ends.slice(0, this.count), this.irregular);
  }
}

export class PackedTexts {
  constructor(
    private readonly bytes: Buffer,
    /** ends[i]: the byte where text i ends (it starts where text i − 1 ends). */
    private readonly ends: Float64Array,
    private readonly irregular: ReadonlyMap<number, string> = new Map(),
  ) {}

  static from(texts: Iterable<string>): PackedTexts {
    const b = new PackedTextsBuilder();
    for (const t of texts) b.push(t);
    return b.finish();
  }

  get length(): number {
    return this.ends.length;
  }

  /** Bytes held (the UTF-8 arena and the offsets). */
  get byteLength(): number {
    return this.bytes.length + this.ends.byteLength;
  }

  /** Text i ("" outside 0 .. length − 1, as an unset slot of a string array reads). */
  at(i: number): string {
    if (!(i >= 0 && i < this.ends.length)) return "";
    if (this.irregular.size > 0) {
      const s = this.irregular.get(i);
      if (s !== undefined) return s;
    }
    return this.bytes.toString("utf8", i === 0 ? 0 : this.ends[i - 1], this.ends[i]);
  }

  /** Texts from .. to − 1, as Array.prototype.slice reads them. */
  slice(from: number, to: number): string[] {
    const out: string[] = [];
    for (let i = Math.max(0, from); i < Math.min(to, this.ends.length); i++) out.push(this.at(i));
    return out;
  }
}
