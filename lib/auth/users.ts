import { randomBytes } from "node:crypto";
import { z } from "zod";
import { CodedError } from "@/lib/errors";
import type { Db } from "@/lib/db";
import { hashPassword, passwordProblem, timingDummyHash, verifyPassword } from "./password";

// Accounts of the annotation study: admins run studies and read agreement, annotators rate.

export const ROLES = ["admin", "annotator"] as const;
export type Role = (typeof ROLES)[number];

/** What the app knows about the signed-in user (never the hash). */
export interface SessionUser {
  id: number;
  email: string;
  name: string;
  role: Role;
}

export interface UserView extends SessionUser {
  disabled: boolean;
  createdAt: string;
}

export const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .pipe(z.email({ error: "must be an email address" }).max(254));

export const passwordSchema = z.string().superRefine((pw, ctx) => {
  const problem = passwordProblem(pw);
  if (problem) ctx.addIssue({ code: "custom", message: `password ${problem}` });
});

export const newUserInput = z.object({
  email: emailSchema,
  name: z.string().trim().max(120).default(""),
  password: passwordSchema,
  role: z.enum(ROLES).default("annotator"),
});
export type NewUserInput = z.input<typeof newUserInput>;

export const userUpdateInput = z
  .object({
    name: z.string().trim().max(120).optional(),
    password: passwordSchema.optional(),
    disabled: z.boolean().optional(),
  })
  .refine((u) => Object.values(u).some((v) => v !== undefined), { error: "nothing to update" });
export type UserUpdateInput = z.input<typeof userUpdateInput>;

export class UserExistsError extends CodedError {
  constructor(readonly email: string) {
    super("conflict", `a user with the email ${email} already exists`);
    this.name = "UserExistsError";
  }
}

export class UserNotFoundError extends CodedError {
  constructor(what: string) {
    super("not_found", `no user ${what}`);
    this.name = "UserNotFoundError";
  }
}

interface UserRow {
  id: number;
  email: string;
  name: string;
  role: string;
  disabled: boolean;
  createdAt: Date;
}

export function toSessionUser(u: Pick<UserRow, "id" | "email" | "name" | "role">): SessionUser {
  const role = z.enum(ROLES).parse(u.role);
  return { id: u.id, email: u.email, name: u.name, role };
}

function toView(u: UserRow): UserView {
  return { ...toSessionUser(u), disabled: u.disabled, createdAt: u.createdAt.toISOString() };
}

/** A readable random password for "create and hand over" invitations (~95 bits). */
export function generatePassword(): string {
  return randomBytes(12)
    .toString("base64url")
    .replace(/[-_]/g, "x")
    .match(/.{1,4}/g)!
    .join("-");
}

export async function createUser(db: Db, input: NewUserInput, options: { rounds?: number } = {}): Promise<UserView> {
  const data = newUserInput.parse(input);
  if (await db.user.findUnique({ where: { email: data.email }, select: { id: true } })) throw new UserExistsError(data.email);
  const passwordHash = await hashPassword(data.password, options.rounds);
  try {
    return toView(await db.user.create({ data: { email: data.email, name: data.name, role: data.role, passwordHash } }));
  } catch (err) {
    // A concurrent create of the same email lost the race at the unique index.
    if (typeof err === "object" && err !== null && (err as { code?: string }).code === "P2002") throw new UserExistsError(data.email);
    throw err;
  }
}

/** The user for an email and password, or null (unknown email, wrong password or disabled). */
export async function authenticate(db: Db, email: string, password: string): Promise<SessionUser | null> {
  const parsed = emailSchema.safeParse(email);
  const user = parsed.success ? await db.user.findUnique({ where: { email: parsed.data } }) : null;
  if (!user) {
    await verifyPassword(password, await timingDummyHash());
    return null;
  }
  const ok = await verifyPassword(password, user.passwordHash);
  return ok && !user.disabled ? toSessionUser(user) : null;
}

export async function listUsers(db: Db, role?: Role): Promise<UserView[]> {
  const rows = await db.user.findMany({ where: role ? { role } : {}, orderBy: [{ role: "asc" }, { email: "asc" }] });
  return rows.map(toView);
}

export async function findUserByEmail(db: Db, email: string): Promise<UserView | null> {
  const row = await db.user.findUnique({ where: { email: emailSchema.parse(email) } });
  return row ? toView(row) : null;
}

/**
 * Renames, re-keys or (dis/en)ables an account. A new password or disabling signs the user out
 * everywhere, so a leaked session does not outlive the change.
 */
export async function updateUser(db: Db, id: number, input: UserUpdateInput, options: { rounds?: number } = {}): Promise<UserView> {
  const data = userUpdateInput.parse(input);
  const existing = await db.user.findUnique({ where: { id }, select: { id: true } });
  if (!existing) throw new UserNotFoundError(`with id ${id}`);
  const passwordHash = data.password !== undefined ? await hashPassword(data.password, options.rounds) : undefined;
  const [row] = await db.$transaction([
    db.user.update({
      where: { id },
      data: {
        ...(data.name !== undefined ? { name: data.name } : {}),
        ...(data.disabled !== undefined ? { disabled: data.disabled } : {}),
        ...(passwordHash ? { passwordHash } : {}),
      },
    }),
    ...(passwordHash || data.disabled ? [db.session.deleteMany({ where: { userId: id } })] : []),
  ]);
  return toView(row);
}
