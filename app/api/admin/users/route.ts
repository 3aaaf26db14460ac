import { z } from "zod";
import { requireApiUser } from "@/lib/auth/guard";
import { createUser, generatePassword, listUsers, ROLES } from "@/lib/auth/users";
import { readJson } from "@/lib/annotation/api";
import { getDb } from "@/lib/db/client";
import { handleRoute, json, parseWith } from "@/lib/http/respond";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** GET /api/admin/users → {users} (admins only). */
export const GET = handleRoute(async (req: Request) => {
  await requireApiUser(req, "admin");
  return { users: await listUsers(getDb()) };
});

const body = z.object({
  email: z.string(),
  name: z.string().optional(),
  // Empty means "generate one": the admin hands it over, and it is shown only in this answer.
  password: z.string().optional(),
  role: z.enum(ROLES).default("annotator"),
});

/** POST /api/admin/users {email, name?, password?, role?} → 201 {user, password?}. */
export const POST = handleRoute(async (req: Request) => {
  await requireApiUser(req, "admin");
  const input = parseWith(body, await readJson(req));
  const generated = input.password ? undefined : generatePassword();
  const user = await createUser(getDb(), { ...input, password: input.password || generated! });
  return json({ user, ...(generated ? { password: generated } : {}) }, { status: 201 });
});
