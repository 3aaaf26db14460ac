import { configFrom, type Env } from "@/lib/config";

// Who is the client? The rate limiter needs one key per client.
//
// Next fills X-Forwarded-For with the socket's address only when the request has none, and
// passes a client-sent one through unchanged. So:
//   GRAFT_TRUSTED_PROXIES=0 (default; Graft faces clients directly): the rightmost entry, which
//     is the socket address unless the client forged the header. A forger gets a fresh bucket
//     per forged address; the global bucket of each class still caps what all of them can do.
//   GRAFT_TRUSTED_PROXIES=N (N reverse proxies in front, each appending the address it saw, as
//     nginx's $proxy_add_x_forwarded_for does): the Nth entry from the right, which the nearest
//     trusted proxy wrote and the client cannot forge.

/** GRAFT_TRUSTED_PROXIES (0-10, lib/config.ts), of this process or of `env`. */
export function trustedProxyHops(env?: Env): number {
  return configFrom(env).GRAFT_TRUSTED_PROXIES;
}

/** The address as a rate-limit key: IPv4-mapped IPv6 unwrapped, IPv6 cut to its /64 (one host usually owns a whole /64). */
export function normaliseAddress(addr: string): string {
  let a = addr.trim().toLowerCase();
  if (a.startsWith("[")) a = a.slice(1, a.indexOf("]") > 0 ? a.indexOf("]") : undefined);
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  if (mapped) return mapped[1];
  const v4port = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(a);
  if (v4port) return v4port[1];
  if (/^\d+\.\d+\.\d+\.\d+$/.test(a)) return a;
  if (a.includes(":")) {
    // Expand "::" enough to take the first four groups.
    const [head, tail = ""] = a.split("::");
    const h = head ? head.split(":") : [];
    const t = tail ? tail.split(":") : [];
    const groups = a.includes("::") ? [...h, ...Array(Math.max(0, 8 - h.length - t.length)).fill("0"), ...t] : h;
    if (groups.length >= 4 && groups.slice(0, 4).every((g) => /^[0-9a-f]{1,4}$/.test(g)))
      return `${groups
        .slice(0, 4)
        .map((g) => g.replace(/^0+(?=.)/, ""))
        .join(":")}::/64`;
  }
  // Not an address at all (a forged header): keep it, bounded, as its own key.
  return a.slice(0, 64) || "unknown";
}

export function clientKey(headers: Headers, hops = trustedProxyHops()): string {
  const xff = headers.get("x-forwarded-for");
  const entries = (xff ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (entries.length === 0) return normaliseAddress(headers.get("x-real-ip") ?? "unknown");
  const at = Math.max(0, entries.length - Math.max(1, hops));
  return normaliseAddress(entries[at]);
}
