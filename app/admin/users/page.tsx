import type { Metadata } from "next";
import { adminNav, StudyHeader } from "@/components/annotation/study-header";
import { UserAdmin } from "@/components/annotation/user-admin";
import { requireUser, listUsers } from "@/lib/auth";
import { getDb } from "@/lib/db";

export const metadata: Metadata = { title: "Annotators" };
export const dynamic = "force-dynamic";

export default async function UsersPage() {
  const user = await requireUser("admin", { next: "/admin/users" });
  const users = await listUsers(getDb());
  return (
    <>
      <StudyHeader
        eyebrow="Admin"
        title="Annotators and admins"
        description="Accounts that can sign in. Annotators see only their own sheets; admins create studies and read agreement."
        user={user}
        nav={adminNav("users")}
      />
      <div className="mx-auto max-w-6xl px-4 pt-8 sm:px-6">
        <UserAdmin users={users} selfId={user.id} />
      </div>
    </>
  );
}
