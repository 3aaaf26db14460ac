import { signIn } from "@/lib/auth/sign-in";
import { getDb } from "@/lib/db";
import { handleRoute } from "@/lib/http";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** POST /api/auth/login {email, password, next?} → {user, redirect} and a session cookie (lib/auth/sign-in.ts). */
export const POST = handleRoute(async (req: Request) => signIn(getDb(), req));
