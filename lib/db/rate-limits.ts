import { RateLimiterMemory, RateLimiterPrisma, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import type { Db } from "./client";

// Rate limits and lockouts counted in the store (the RateLimit table, through
// rate-limiter-flexible's Prisma store), so every app instance sees the same counts: two
// instances that each allow 30 allow 30 together. A spec `<per minute>:<burst>` becomes `burst`
// requests per window of burst/perMinute minutes. If the store fails, each instance falls back
// to counting in its own memory (the library's insurance limiter) rather than refusing everyone.

export interface BucketSpec {
  /** Sustained rate. 0 disables the limit. */
  perMinute: number;
  /** Requests allowed at once. */
  burst: number;
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

export interface Decision {
  allowed: boolean;
  /** Requests left in the window after this one. */
  remaining: number;
  /** Seconds until a request is allowed again (0 when allowed). */
  retryAfterSec: number;
  limit: number;
}

export class Limit {
  private readonly limiter: RateLimiterAbstract | null;

  constructor(
    /** Names the counters in the store ("query", "account", …). */
    readonly name: string,
    readonly spec: BucketSpec,
    db?: Db,
  ) {
    if (!(spec.perMinute >= 0) || !(spec.burst >= 1)) throw new Error(`invalid rate limit ${JSON.stringify(spec)}`);
    if (spec.perMinute === 0) {
      this.limiter = null;
      return;
    }
    const options = { keyPrefix: `graft:${name}`, points: spec.burst, duration: Math.max(1, Math.round((spec.burst / spec.perMinute) * 60)) };
    const memory = new RateLimiterMemory(options);
    this.limiter = db
      ? new RateLimiterPrisma({
          ...options,
          storeClient: db,
          tableName: "rateLimit",
          insuranceLimiter: memory,
          // A key that ran out is refused from memory until its window ends: a flood costs no store writes.
          inMemoryBlockOnConsumed: spec.burst,
        })
      : memory;
  }

  /** Counts one request of `key`. */
  async take(key: string): Promise<Decision> {
    if (!this.limiter) return this.open();
    try {
      return this.decision(await this.limiter.consume(key), true);
    } catch (res) {
      if (res instanceof RateLimiterRes) return this.decision(res, false);
      throw res;
    }
  }

  /** Whether `key` may go on, without counting anything. */
  async peek(key: string): Promise<Decision> {
    if (!this.limiter) return this.open();
    const res = await this.limiter.get(key);
    if (!res || res.consumedPoints < this.spec.burst) return { ...this.open(), remaining: Math.max(0, this.spec.burst - (res?.consumedPoints ?? 0)) };
    return this.decision(res, false);
  }

  /** Forgets `key`'s count (a successful sign-in ends an account's failures). */
  async reset(key: string): Promise<void> {
    await this.limiter?.delete(key);
  }

  private open(): Decision {
    return { allowed: true, remaining: this.spec.burst, retryAfterSec: 0, limit: this.spec.burst };
  }

  private decision(res: RateLimiterRes, allowed: boolean): Decision {
    return {
      allowed,
      remaining: Math.max(0, res.remainingPoints),
      retryAfterSec: allowed ? 0 : Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
      limit: this.spec.burst,
    };
  }
}
