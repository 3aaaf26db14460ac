/**
 * The values a dynamic route segment may stand for, most literal first.
 *
 * Links encode paper ids with encodeURIComponent (some ids are URLs with "/" and ":"). Next 16
 * hands the segment to a page decoded on a full page load, but still percent-encoded when the page
 * renders for a client-side navigation (verified with e2e/browse.spec.ts). Decoding blindly would
 * corrupt ids that contain "%", so callers try the value as given, then its decoded form.
 */
export function segmentCandidates(segment: string): string[] {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return [segment]; // a malformed escape cannot be an encoded id
  }
  return decoded === segment ? [segment] : [segment, decoded];
}

/** The first candidate for which `find` returns a value (null when none does). */
export async function resolveSegment<T>(segment: string, find: (value: string) => Promise<T | null>): Promise<T | null> {
  for (const candidate of segmentCandidates(segment)) {
    const found = await find(candidate);
    if (found !== null) return found;
  }
  return null;
}
