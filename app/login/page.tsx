import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { LoginForm } from "@/components/annotation/login-form";
import { eyebrowClass } from "@/components/ui";
import { getCurrentUser, afterSignIn, localPath } from "@/lib/auth";

export const metadata: Metadata = { title: "Sign in" };
export const dynamic = "force-dynamic";

type SearchParams = Promise<{ next?: string | string[]; signedOut?: string }>;

export default async function LoginPage({ searchParams }: { searchParams: SearchParams }) {
  const sp = await searchParams;
  const next = localPath(sp.next);
  const user = await getCurrentUser();
  if (user) redirect(afterSignIn(next, user.role === "admin" ? "/admin" : "/annotate"));
  return (
    <div className="mx-auto max-w-sm px-4 py-16 sm:px-6">
      <p className={eyebrowClass}>Groundedness study</p>
      <h1 className="mt-1 text-2xl font-semibold tracking-tight">Sign in</h1>
      <p className="mt-2 text-[0.9375rem] leading-relaxed text-ink-muted">
        Annotators rate extracted facet items against their papers; admins run studies and read agreement. Accounts are created by an admin.
      </p>
      <div className="mt-6 rounded-lg border border-line bg-surface p-5 shadow-xs">
        <LoginForm next={next} notice={sp.signedOut ? "You are signed out." : next ? "Sign in to continue." : undefined} />
      </div>
    </div>
  );
}
