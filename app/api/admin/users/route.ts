import { z } from "zod";
import { requireApiUser, createUser, generatePassword, listUsers, ROLES } from "@/lib/auth";
import { readJson } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { handleRoute, json, parseWith } from "@/lib/http";

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
