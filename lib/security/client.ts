import { BlockList, isIP } from "node:net";
import { configFrom, type Env } from "@/lib/config";

// Who is the client? Rate limits need one key per client, and a client must not choose its own.
//
// scripts/server.mjs (the documented way to serve Graft) appends the address that really
// connected to X-Forwarded-For, as a reverse proxy does, so the rightmost entry is always the
// TCP peer. Entries are read from the right: an entry is believed to be the client unless it
// is a trusted proxy (GRAFT_TRUSTED_PROXIES), in which case the entry to its left (which that
// proxy wrote) is looked at next. With no trusted proxy (the default) the client is the peer,
// and whatever the client wrote into the header itself is ignored.
//
// `next start` alone fills the header only when the client sent none, so there a client can
// still name an address; lib/security/screen.ts's per-account lockout and the store-shared
// limits hold either way, but run scripts/server.mjs (scripts/serve.sh does) in production.

/** The trusted proxies as a matcher; a malformed entry throws, naming the setting. */
export function trustedProxies(entries: readonly string[]): BlockList {
  const list = new BlockList();
  for (const e of entries) {
    if (e === "loopback") {
      list.addSubnet("127.0.0.0", 8, "ipv4");
      list.addAddress("::1", "ipv6");
      continue;
    }
    const [addr, bits] = e.split("/");
    const family = isIP(addr);
    const prefix = bits === undefined ? undefined : Number(bits);
    if (family === 0 || (prefix !== undefined && !(Number.isInteger(prefix) && prefix >= 0 && prefix <= (family === 4 ? 32 : 128))))
      throw new Error(`GRAFT_TRUSTED_PROXIES: "${e}" is not an address or CIDR`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (prefix === undefined) list.addAddress(addr, type);
    else list.addSubnet(addr, prefix, type);
  }
  return list;
}

/** GRAFT_TRUSTED_PROXIES of this process or of `env`, as a matcher. */
export function trustedProxiesFromEnv(env?: Env): BlockList {
  return trustedProxies(configFrom(env).GRAFT_TRUSTED_PROXIES);
}

/** An entry as a plain address: port and brackets dropped, IPv4-mapped IPv6 unwrapped. */
function plainAddress(entry: string): string {
  let a = entry.trim().toLowerCase();
  if (a.startsWith("[")) a = a.slice(1, a.indexOf("]") > 0 ? a.indexOf("]") : undefined);
  const v4port = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(a);
  if (v4port) a = v4port[1];
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(a);
  return mapped ? mapped[1] : a;
}

function isTrusted(entry: string, trusted: BlockList): boolean {
  const a = plainAddress(entry);
  const family = isIP(a);
  return family !== 0 && trusted.check(a, family === 4 ? "ipv4" : "ipv6");
}

/** The client's address: the rightmost X-Forwarded-For entry that is not a trusted proxy. */
export function clientAddress(headers: Headers, trusted: BlockList): string {
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  for (let i = entries.length - 1; i >= 0; i--) if (i === 0 || !isTrusted(entries[i], trusted)) return entries[i];
  return "unknown";
}

/** The address as a rate-limit key: IPv4-mapped IPv6 unwrapped, IPv6 cut to its /64 (one host usually owns a whole /64). */
export function normaliseAddress(addr: string): string {
  const a = plainAddress(addr);
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
  // Not an address at all (a forged header behind a trusted proxy): keep it, bounded, as its own key.
  return a.slice(0, 64) || "unknown";
}

/** The rate-limit key of the request's client. */
export function clientKey(headers: Headers, trusted: BlockList = trustedProxiesFromEnv()): string {
  return normaliseAddress(clientAddress(headers, trusted));
}
