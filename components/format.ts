// Display helpers shared by server and client components. Numbers use a fixed locale so the
// server-rendered HTML and the hydrated client agree.

const numberFormat = new Intl.NumberFormat("en-US");

export function formatCount(n: number): string {
  return numberFormat.format(n);
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${formatCount(n)} ${n === 1 ? one : many}`;
}

/** "A, B, C et al." — the first `max` authors; the full list stays on the paper page. */
export function formatAuthors(authors: string[], max = 3): string {
  if (authors.length === 0) return "Unknown authors";
  if (authors.length <= max) return authors.join(", ");
  return `${authors.slice(0, max).join(", ")} et al.`;
}

/** Venues are full proceedings titles; the leading "Proceedings of the" adds length, not information. */
export function shortVenue(venue: string): string {
  return venue.replace(/^proceedings of (the )?/i, "").replace(/^./, (c) => c.toUpperCase());
}

/** Path of a paper page. Ids may contain dots, slashes and colons (some are URLs), so encode them. */
export function paperHref(corpus: string, externalId: string): string {
  return `/papers/${encodeURIComponent(corpus)}/${encodeURIComponent(externalId)}`;
}

/** 1st, 2nd, 3rd, 4th, 11th, 12th, 13th, 21st… */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? "th" : (({ 1: "st", 2: "nd", 3: "rd" } as Record<number, string>)[n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** "a", "a and b", "a, b and c". */
export function listJoin(parts: string[]): string {
  return parts.length <= 1 ? (parts[0] ?? "") : `${parts.slice(0, -1).join(", ")} and ${parts.at(-1)}`;
}
