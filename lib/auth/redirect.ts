// Where sign-in may send the browser afterwards (`next`): a path on this site only. A browser
// and a string check disagree on too much (it drops tabs and newlines, reads "\" as "/", "//x"
// as another host), so `next` is resolved with the URL parser against a stand-in origin, as the
// browser would, and kept only if the origin did not change.

const HERE = "http://graft.invalid";

const isControl = (ch: string) => ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f;

/**
 * `raw` as a same-origin path ("/admin/studies/3?tab=a#b", normalised by the URL parser), or
 * undefined for anything that could leave this origin or is not a path at all.
 */
export function localPath(raw: unknown): string | undefined {
  if (typeof raw !== "string" || raw.length > 2000) return undefined;
  // Control characters (the parser silently drops tab and newline) and "\" (read as "/") are
  // never in a path this site links to; refusing them removes every way of hiding a "//".
  if (!raw.startsWith("/") || raw.includes("\\") || [...raw].some(isControl)) return undefined;
  let url: URL;
  try {
    url = new URL(raw, HERE);
  } catch {
    return undefined;
  }
  if (url.origin !== HERE) return undefined;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // "/.//evil" resolves to the path "//evil", which a browser reads as another host.
  return path.startsWith("/") && !path.startsWith("//") ? path : undefined;
}

/** Where a user goes after signing in: `next` if it is a local path other than the sign-in page, else `home`. */
export function afterSignIn(next: unknown, home: string): string {
  const path = localPath(next);
  return path && !/^\/login(?:[/?#]|$)/i.test(path) ? path : home;
}
