// Per-client token buckets: each client may make `burst` requests at once and then `perMinute`
// a minute on average. Held in process memory (one Next server process); a deployment with
// several app instances behind a load balancer gets per-instance limits.

export interface BucketSpec {
  /** Sustained rate. 0 disables the limit. */
  perMinute: number;
  /** Requests allowed at once (bucket size). */
  burst: number;
}

export interface Decision {
  allowed: boolean;
  /** Whole requests left in the bucket after this one. */
  remaining: number;
  /** Seconds until one request is allowed again (0 when allowed). */
  retryAfterSec: number;
  limit: number;
}

interface Bucket {
  tokens: number;
  at: number;
}

export class TokenBucketLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMs: number;

  constructor(
    readonly spec: BucketSpec,
    /** Most clients tracked at once: forged client keys must not grow memory without bound. */
    private readonly maxKeys = 50_000,
  ) {
    if (!(spec.perMinute >= 0) || !(spec.burst >= 1)) throw new Error(`invalid rate limit ${JSON.stringify(spec)}`);
    this.perMs = spec.perMinute / 60_000;
  }

  get size(): number {
    return this.buckets.size;
  }

  /** Takes one token for `key` at time `now` (ms). */
  take(key: string, now = Date.now()): Decision {
    const { burst } = this.spec;
    if (this.spec.perMinute === 0) return { allowed: true, remaining: burst, retryAfterSec: 0, limit: burst };
    let b = this.buckets.get(key);
    if (b) {
      b.tokens = Math.min(burst, b.tokens + Math.max(0, now - b.at) * this.perMs);
      b.at = now;
      // Re-insert: Map order is then least recently used first, for eviction.
      this.buckets.delete(key);
    } else {
      b = { tokens: burst, at: now };
      if (this.buckets.size >= this.maxKeys) this.evict(now);
    }
    this.buckets.set(key, b);
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return { allowed: true, remaining: Math.floor(b.tokens), retryAfterSec: 0, limit: burst };
    }
    return { allowed: false, remaining: 0, retryAfterSec: Math.max(1, Math.ceil((1 - b.tokens) / this.perMs / 1000)), limit: burst };
  }

  /** Drops buckets that have refilled completely (the same as absent), then the least recently used. */
  private evict(now: number): void {
    const full = this.spec.burst / this.perMs;
    for (const [k, b] of this.buckets) if (now - b.at >= full) this.buckets.delete(k);
    const excess = this.buckets.size - Math.floor(this.maxKeys * 0.9);
    if (excess > 0) {
      let n = 0;
      for (const k of this.buckets.keys()) {
        if (n++ >= excess) break;
        this.buckets.delete(k);
      }
    }
  }
}

/**
 * "60" or "60:30" (per minute[:burst]) from an environment value; "0" or "off" disables.
 * A malformed value throws: a typo must not silently remove a limit.
 */
export function parseBucketSpec(raw: string | undefined, fallback: BucketSpec, name: string): BucketSpec {
  const v = raw?.trim();
  if (!v) return fallback;
  if (v === "off" || v === "0") return { perMinute: 0, burst: 1 };
  const m = /^(\d+(?:\.\d+)?)(?::(\d+))?$/.exec(v);
  if (!m) throw new Error(`${name} must be "<per minute>" or "<per minute>:<burst>" (or "off"), got "${v}"`);
  const perMinute = Number(m[1]);
  const burst = m[2] ? Number(m[2]) : Math.max(1, Math.ceil(perMinute / 2));
  if (burst < 1) throw new Error(`${name}: burst must be at least 1`);
  return { perMinute, burst };
}
