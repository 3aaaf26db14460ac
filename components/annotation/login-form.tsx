"use client";

import { useEffect, useId, useState, type FormEvent } from "react";
import { ApiError, sendJson } from "@/lib/http/client";
import { formFieldClass as inputClass, formPrimaryButtonClass as primaryButtonClass, labelClass } from "../ui";
import { useRequest } from "./use-request";

/** Email + password sign-in; on success a full page load, so every server component sees the cookie. */
export function LoginForm({ next, notice }: { next?: string; notice?: string }) {
  const ids = { email: useId(), password: useId(), error: useId() };
  // After too many attempts the server pauses signing in for this client: count the pause down
  // and keep the button off until it ends, since even the right password is refused meanwhile.
  const [pausedFor, setPausedFor] = useState(0);
  const { pending, error, run } = useRequest({
    fallback: "Could not sign in. Try again.",
    leavesPage: true,
    onError: (err) => {
      if (err instanceof ApiError && err.code === "rate_limited") setPausedFor(Math.max(1, Math.ceil(err.retryAfterSec ?? 60)));
    },
  });
  useEffect(() => {
    if (pausedFor <= 0) return;
    const t = setTimeout(() => setPausedFor((s) => s - 1), 1000);
    return () => clearTimeout(t);
  }, [pausedFor]);

  async function onSubmit(e: FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const form = new FormData(e.currentTarget);
    await run(async () => {
      const res = await sendJson<{ redirect: string }>("/api/auth/login", "POST", { email: form.get("email"), password: form.get("password"), next });
      window.location.assign(res.redirect);
    });
  }

  return (
    <form onSubmit={onSubmit} className="space-y-4" aria-describedby={error ? ids.error : undefined} noValidate>
      {notice && !error && <p className="rounded-md border border-line bg-canvas px-3 py-2 text-sm text-ink-muted">{notice}</p>}
      {error && (
        <p id={ids.error} role="alert" className="rounded-md border border-danger/30 bg-danger-tint px-3 py-2 text-sm text-danger" data-testid="login-error">
          {error}
        </p>
      )}
      {pausedFor > 0 && (
        <p className="text-sm text-ink-muted" data-testid="login-paused" aria-live="off">
          You can sign in again in {pausedFor} s.
        </p>
      )}
      <div>
        <label htmlFor={ids.email} className={labelClass}>
          Email
        </label>
        <input id={ids.email} name="email" type="email" autoComplete="username" required autoFocus className={inputClass} />
      </div>
      <div>
        <label htmlFor={ids.password} className={labelClass}>
          Password
        </label>
        <input id={ids.password} name="password" type="password" autoComplete="current-password" required className={inputClass} />
      </div>
      <button type="submit" disabled={pending || pausedFor > 0} className={`${primaryButtonClass} w-full`}>
        {pending ? "Signing in…" : pausedFor > 0 ? `Sign in (paused, ${pausedFor} s)` : "Sign in"}
      </button>
    </form>
  );
}
