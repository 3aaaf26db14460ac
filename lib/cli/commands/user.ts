import type { Command } from "commander";
import { z } from "zod";
import { deleteUserSessions, createUser, findUserByEmail, generatePassword, listUsers, passwordSchema, updateUser, UserExistsError } from "@/lib/auth";
import { config } from "@/lib/config";
import { getDb } from "@/lib/db";
import { emit, parseOptions, table, UsageError } from "../output";

// Accounts for the annotation study. The first admin can only come from here (the web app lets
// admins create accounts, so someone has to exist first): `graft user add --admin`.

/** Where a password comes from: stdin (--password-stdin), GRAFT_USER_PASSWORD, or generated. */
async function passwordFrom(opts: { passwordStdin?: boolean }): Promise<{ password: string; generated: boolean }> {
  let password: string | undefined;
  if (opts.passwordStdin) {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    password = Buffer.concat(chunks)
      .toString("utf8")
      .replace(/\r?\n$/, "");
  } else {
    password = config().GRAFT_USER_PASSWORD?.reveal();
  }
  if (password === undefined) return { password: generatePassword(), generated: true };
  const checked = passwordSchema.safeParse(password);
  if (!checked.success) throw new UsageError(checked.error.issues[0].message);
  return { password, generated: false };
}

const PASSWORD_HELP = "read the password from stdin (else GRAFT_USER_PASSWORD, else a generated one is printed once)";

export function registerUser(program: Command): void {
  const user = program.command("user").description("accounts of the annotation study (admins and annotators)");

  user
    .command("add")
    .description("create an account (an annotator unless --admin)")
    .requiredOption("--email <email>", "sign-in email")
    .option("--name <name>", "display name", "")
    .option("--admin", "give the account the admin role")
    .option("--password-stdin", PASSWORD_HELP)
    .option("--json", "machine-readable output")
    .addHelpText("after", "\nExample (the first admin; prints a generated password once):\n  npm run graft -- user add --email you@example.org --admin")
    .action(async (raw: Record<string, unknown>) => {
      const opts = parseOptions(
        z.object({
          email: z.string(),
          name: z.string(),
          admin: z.boolean().default(false),
          passwordStdin: z.boolean().default(false),
          json: z.boolean().default(false),
        }),
        raw,
      );
      const { password, generated } = await passwordFrom(opts);
      try {
        const created = await createUser(getDb(), { email: opts.email, name: opts.name, password, role: opts.admin ? "admin" : "annotator" });
        emit(opts, { ...created, ...(generated ? { password } : {}) }, () =>
          [
            `created ${created.role} ${created.email} (id ${created.id})`,
            ...(generated ? [`password: ${password}  (shown once; change it with graft user passwd)`] : []),
          ].join("\n"),
        );
      } catch (err) {
        if (err instanceof UserExistsError || err instanceof z.ZodError)
          throw new UsageError(err instanceof z.ZodError ? err.issues.map((i) => i.message).join("; ") : err.message);
        throw err;
      }
    });

  user
    .command("list")
    .description("list accounts")
    .option("--json", "machine-readable output")
    .action(async (opts: { json?: boolean }) => {
      const users = await listUsers(getDb());
      emit(opts, users, () =>
        users.length
          ? table(
              ["email", "name", "role", "status"],
              users.map((u) => [u.email, u.name, u.role, u.disabled ? "disabled" : "active"]),
            )
          : "no accounts yet: graft user add --email <email> --admin",
      );
    });

  for (const [name, disabled] of [
    ["disable", true],
    ["enable", false],
  ] as const)
    user
      .command(name)
      .description(disabled ? "block an account from signing in and end its sessions" : "let a disabled account sign in again")
      .argument("<email>")
      .option("--json", "machine-readable output")
      .action(async (email: string, opts: { json?: boolean }) => {
        const found = await lookup(email);
        const updated = await updateUser(getDb(), found.id, { disabled });
        emit(opts, updated, () => `${updated.email} ${disabled ? "disabled" : "enabled"}`);
      });

  user
    .command("passwd")
    .description("set a new password (ends the account's sessions)")
    .argument("<email>")
    .option("--password-stdin", PASSWORD_HELP)
    .option("--json", "machine-readable output")
    .action(async (email: string, opts: { passwordStdin?: boolean; json?: boolean }) => {
      const found = await lookup(email);
      const { password, generated } = await passwordFrom(opts);
      await updateUser(getDb(), found.id, { password });
      emit(opts, { email: found.email, ...(generated ? { password } : {}) }, () =>
        generated ? `new password for ${found.email}: ${password}  (shown once)` : `password of ${found.email} changed`,
      );
    });

  user
    .command("signout")
    .description("end every session of an account")
    .argument("<email>")
    .option("--json", "machine-readable output")
    .action(async (email: string, opts: { json?: boolean }) => {
      const found = await lookup(email);
      const ended = await deleteUserSessions(getDb(), found.id);
      emit(opts, { email: found.email, sessionsEnded: ended }, () => `ended ${ended} session(s) of ${found.email}`);
    });
}

async function lookup(email: string) {
  const parsed = z.email().safeParse(email.trim().toLowerCase());
  if (!parsed.success) throw new UsageError(`"${email}" is not an email address`);
  const found = await findUserByEmail(getDb(), parsed.data);
  if (!found) throw new UsageError(`no account with the email ${parsed.data}`);
  return found;
}
