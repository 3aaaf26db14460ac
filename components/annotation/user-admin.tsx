"use client";

import { useRouter } from "next/navigation";
import { useId, useState, type FormEvent } from "react";
import type { UserView } from "@/lib/auth";
import { ApiError, sendJson } from "@/lib/http/client";
import { formButtonClass as buttonClass, formFieldClass as inputClass, formPrimaryButtonClass as primaryButtonClass, labelClass } from "../ui";

type Notice = { kind: "ok" | "error"; text: string; password?: string; email?: string } | null;

/** Create annotator (or admin) accounts and manage existing ones. */
// eslint-disable-next-line max-lines-per-function -- mostly JSX markup: the user table and its forms (about 110 of its lines)
export function UserAdmin({ users, selfId }: { users: UserView[]; selfId: number }) {
  const router = useRouter();
  const ids = { email: useId(), name: useId(), password: useId(), role: useId() };
  const [notice, setNotice] = useState<Notice>(null);
  const [pending, setPending] = useState(false);

  async function call<T>(url: string, method: string, body: unknown): Promise<T | null> {
    setPending(true);
    try {
      return await sendJson<T>(url, method, body);
    } catch (err) {
      setNotice({ kind: "error", text: err instanceof ApiError ? err.message : "The request failed." });
      return null;
    } finally {
      setPending(false);
    }
  }

  async function onCreate(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const formEl = e.currentTarget;
    const form = new FormData(formEl);
    const res = await call<{ user: UserView; password?: string }>("/api/admin/users", "POST", {
      email: form.get("email"),
      name: form.get("name"),
      password: form.get("password") || undefined,
      role: form.get("role"),
    });
    if (!res) return;
    formEl.reset();
    setNotice({ kind: "ok", text: `Created ${res.user.role} ${res.user.email}.`, password: res.password, email: res.user.email });
    router.refresh();
  }

  async function update(u: UserView, patch: Record<string, unknown>, done: string) {
    const res = await call<{ user: UserView; password?: string }>(`/api/admin/users/${u.id}`, "PATCH", patch);
    if (!res) return;
    setNotice({ kind: "ok", text: done, password: res.password, email: u.email });
    router.refresh();
  }

  return (
    <div className="space-y-6">
      <section aria-labelledby="create-user" className="rounded-lg border border-line bg-surface px-5 py-4 shadow-xs">
        <h2 id="create-user" className="text-base font-semibold tracking-tight">
          Create an account
        </h2>
        <p className="mt-1 text-sm text-ink-muted">Leave the password empty to generate one; it is shown once, for you to hand over.</p>
        <form onSubmit={onCreate} className="mt-4 grid gap-3 sm:grid-cols-2 lg:grid-cols-[2fr_1.5fr_1.5fr_9rem_auto] lg:items-end">
          <div>
            <label htmlFor={ids.email} className={labelClass}>
              Email
            </label>
            <input id={ids.email} name="email" type="email" required className={inputClass} />
          </div>
          <div>
            <label htmlFor={ids.name} className={labelClass}>
              Name
            </label>
            <input id={ids.name} name="name" className={inputClass} />
          </div>
          <div>
            <label htmlFor={ids.password} className={labelClass}>
              Password (optional)
            </label>
            <input id={ids.password} name="password" type="password" autoComplete="new-password" minLength={8} className={inputClass} />
          </div>
          <div>
            <label htmlFor={ids.role} className={labelClass}>
              Role
            </label>
            <select id={ids.role} name="role" defaultValue="annotator" className={inputClass}>
              <option value="annotator">Annotator</option>
              <option value="admin">Admin</option>
            </select>
          </div>
          <button type="submit" disabled={pending} className={primaryButtonClass}>
            Create
          </button>
        </form>
      </section>

      {notice && (
        <div
          role={notice.kind === "error" ? "alert" : "status"}
          className={`rounded-md border px-4 py-3 text-sm ${notice.kind === "error" ? "border-danger/30 bg-danger-tint text-danger" : "border-line bg-surface text-ink"}`}
        >
          <p>{notice.text}</p>
          {notice.password && (
            <p className="mt-1">
              Password for {notice.email}:{" "}
              <code className="rounded bg-canvas px-1.5 py-0.5 font-mono" data-testid="generated-password">
                {notice.password}
              </code>{" "}
              <span className="text-ink-muted">(shown once)</span>
            </p>
          )}
        </div>
      )}

      <section aria-labelledby="accounts" className="overflow-x-auto rounded-lg border border-line bg-surface shadow-xs">
        <h2 id="accounts" className="sr-only">
          Accounts
        </h2>
        <table className="w-full text-left text-sm">
          <thead className="border-b border-line text-xs text-ink-faint">
            <tr>
              <th className="px-4 py-2.5 font-medium">Email</th>
              <th className="px-4 py-2.5 font-medium">Name</th>
              <th className="px-4 py-2.5 font-medium">Role</th>
              <th className="px-4 py-2.5 font-medium">Status</th>
              <th className="px-4 py-2.5 font-medium">
                <span className="sr-only">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {users.map((u) => (
              <tr key={u.id} className="border-b border-line last:border-0">
                <td className="px-4 py-2.5 font-medium">{u.email}</td>
                <td className="px-4 py-2.5 text-ink-muted">{u.name || "—"}</td>
                <td className="px-4 py-2.5">{u.role}</td>
                <td className={`px-4 py-2.5 ${u.disabled ? "text-danger" : "text-ink-muted"}`}>{u.disabled ? "disabled" : "active"}</td>
                <td className="px-4 py-2 text-right">
                  <div className="flex justify-end gap-2">
                    <button
                      type="button"
                      disabled={pending}
                      className={buttonClass}
                      onClick={() => update(u, { resetPassword: true }, `New password for ${u.email}.`)}
                    >
                      Reset password
                    </button>
                    {u.id !== selfId && (
                      <button
                        type="button"
                        disabled={pending}
                        className={buttonClass}
                        onClick={() => update(u, { disabled: !u.disabled }, `${u.email} ${u.disabled ? "enabled" : "disabled"}.`)}
                      >
                        {u.disabled ? "Enable" : "Disable"}
                      </button>
                    )}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
    </div>
  );
}
