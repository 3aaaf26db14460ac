"use client";

import { useRouter } from "next/navigation";
import { useState } from "react";
import { ApiError, sendJson } from "@/lib/http/client";
import { formButtonClass as buttonClass } from "../ui";

/** Closes a study (ratings freeze) or opens it again. */
export function StudyStatusToggle({ studyId, status }: { studyId: number; status: string }) {
  const router = useRouter();
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const next = status === "open" ? "closed" : "open";
  async function toggle() {
    setPending(true);
    setError(null);
    try {
      await sendJson(`/api/admin/studies/${studyId}`, "PATCH", { status: next });
      router.refresh();
    } catch (err) {
      setError(err instanceof ApiError ? err.message : "Could not change the status.");
    } finally {
      setPending(false);
    }
  }
  return (
    <>
      <button type="button" className={buttonClass} disabled={pending} onClick={toggle}>
        {status === "open" ? "Close study" : "Reopen study"}
      </button>
      {error && (
        <span role="alert" className="self-center text-sm text-danger">
          {error}
        </span>
      )}
    </>
  );
}
