import { z } from "zod";
import { requireApiUser, generatePassword, updateUser, userUpdateInput } from "@/lib/auth";
import { idSegment, readJson } from "@/lib/annotation";
import { getDb } from "@/lib/db";
import { CodedError } from "@/lib/errors";
import { handleRoute, parseWith } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

const body = z.object({
  name: z.string().optional(),
  disabled: z.boolean().optional(),
  password: z.string().optional(),
  /** Set a new generated password and return it once. */
  resetPassword: z.boolean().optional(),
});

/** PATCH /api/admin/users/:id {name?, disabled?, password?, resetPassword?} → {user, password?}. */
export const PATCH = handleRoute(async (req: Request, ctx: { params: Promise<{ id: string }> }) => {
  const admin = await requireApiUser(req, "admin");
  const id = parseWith(idSegment, (await ctx.params).id);
  const { resetPassword, ...input } = parseWith(body, await readJson(req));
  // An admin locking themselves out would leave nobody to undo it.
  if (id === admin.id && input.disabled) throw new CodedError("invalid_request", "You cannot disable your own account.");
  const generated = resetPassword ? generatePassword() : undefined;
  const update = parseWith(userUpdateInput, { ...input, ...(generated ? { password: generated } : {}) });
  const user = await updateUser(getDb(), id, update);
  return { user, ...(generated ? { password: generated } : {}) };
});
