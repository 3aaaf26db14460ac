import bcrypt from "bcryptjs";
import { config } from "@/lib/config";

// Passwords are stored as bcrypt hashes (bcryptjs, pure JS). Cost 12 takes ~0.4 s on a 2-core
// machine: slow enough to blunt offline guessing, fast enough for an interactive sign-in.
// GRAFT_BCRYPT_ROUNDS (4-15, lib/config.ts) may lower it where hashing speed matters more (test fixtures).

export const MIN_PASSWORD_LENGTH = 8;
/** bcrypt reads at most 72 bytes; longer passwords would be silently truncated, so refuse them. */
export const MAX_PASSWORD_BYTES = 72;

export function bcryptRounds(): number {
  return config().GRAFT_BCRYPT_ROUNDS;
}

/** Why a password is unacceptable, or null when it is fine. */
export function passwordProblem(password: string): string | null {
  if (password.length < MIN_PASSWORD_LENGTH) return `must be at least ${MIN_PASSWORD_LENGTH} characters`;
  if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES) return `must be at most ${MAX_PASSWORD_BYTES} bytes`;
  if (password.trim() === "") return "must not be blank";
  return null;
}

export async function hashPassword(password: string, rounds = bcryptRounds()): Promise<string> {
  const problem = passwordProblem(password);
  if (problem) throw new RangeError(`password ${problem}`);
  return bcrypt.hash(password, rounds);
}

export async function verifyPassword(password: string, hash: string): Promise<boolean> {
  if (Buffer.byteLength(password, "utf8") > MAX_PASSWORD_BYTES) return false;
  return bcrypt.compare(password, hash);
}

// A hash of a random string, compared against when the email is unknown, so a sign-in for a
// missing account takes as long as one with a wrong password (no account enumeration by timing).
let dummyHash: Promise<string> | undefined;
export function timingDummyHash(): Promise<string> {
  dummyHash ??= bcrypt.hash(`graft-no-such-user-${Math.random()}`, bcryptRounds());
  return dummyHash;
}
