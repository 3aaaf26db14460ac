"use client";

import { useRouter } from "next/navigation";
import { sendJson } from "@/lib/http/client";
import { formButtonClass as buttonClass } from "../ui";
import { useRequest } from "./use-request";

/** Closes a study (ratings freeze) or opens it again. */
export function StudyStatusToggle({ studyId, status }: { studyId: number; status: string }) {
  const router = useRouter();
  const { pending, error, run } = useRequest({ fallback: "Could not change the status." });
  const next = status === "open" ? "closed" : "open";
  const toggle = () =>
    run(async () => {
      await sendJson(`/api/admin/studies/${studyId}`, "PATCH", { status: next });
      router.refresh();
    });
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
