import http from "node:http";
import { readdirSync } from "node:fs";
import path from "node:path";
import { type APIResponse, expect, test } from "@playwright/test";
import { createUser } from "@/lib/auth/users";
import { disconnectDb, getDb } from "@/lib/db/client";
import { appendJobLogs, claimJob, failJob, reportProgress } from "@/lib/jobs/queue";
import { E2E_BCRYPT_ROUNDS, signedInPage } from "./accounts";

// The request screen (proxy.ts + lib/security) and the security headers, attacked over HTTP
// against the running production server: a cross-site form post from another origin in a real
// browser, floods, oversized and unbounded bodies, an HTML "paper" upload, framing. Floods use
// their own X-Forwarded-For client keys so they do not use up the budget of the other specs.

const CORPUS = "acl-citegraph";
const PAPER = "2005.mtsummit-papers.11";
const PUBLIC_DIR = path.join(import.meta.dirname, "..", "public");

test("pages and API answers carry the security headers", async ({ request }) => {
  for (const url of ["/", "/api/corpora"]) {
    const res = await request.get(url);
    const h = res.headers();
    expect(h["content-security-policy"], url).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"], url).toContain("default-src 'self'");
    expect(h["content-security-policy"], url).toContain("object-src 'none'");
    expect(h["referrer-policy"], url).toBe("strict-origin-when-cross-origin");
    expect(h["x-content-type-options"], url).toBe("nosniff");
    expect(h["x-frame-options"], url).toBe("DENY");
    expect(h["x-powered-by"], url).toBeUndefined();
  }
});

test("another site cannot frame Graft", async ({ page, baseURL }) => {
  // An attacker's page (served by the browser itself) that frames the app for clickjacking.
  await page.route("http://evil.test/**", (route) =>
    route.fulfill({ contentType: "text/html", body: `<!doctype html><iframe src="${baseURL}/" width="800" height="600"></iframe>` }),
  );
  // goto waits for the load event, which waits for the frame (or its blocked error page).
  await page.goto("http://evil.test/clickjack");
  const framed = page.frames().filter((f) => f !== page.mainFrame());
  expect(framed).toHaveLength(1);
  // Chromium replaces a frame refused by frame-ancestors with an empty error document.
  expect(framed[0].url().startsWith(baseURL as string)).toBe(false);
  expect(await framed[0].locator("text=Graft").count()).toBe(0);
});

test("a cross-site form post from another origin is refused (CSRF)", async ({ page, baseURL }) => {
  // The classic attack: a page on another site auto-submits a form to a state-changing endpoint.
  await page.route("http://evil.test/**", (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><form id="f" method="post" action="${baseURL}/api/admin/jobs" enctype="text/plain"><input name='{"stage":"graph","params":{},"x":"' value='"}'></form><script>document.getElementById("f").submit()</script>`,
    }),
  );
  const answer = page.waitForResponse((r) => r.url() === `${baseURL}/api/admin/jobs`);
  await page.goto("http://evil.test/csrf");
  const res = await answer;
  expect(res.status()).toBe(403);
  expect((await res.json()).error.code).toBe("forbidden");
});

test("cross-origin and opaque-origin API posts are refused; same-origin and non-browser posts reach the route", async ({ request, baseURL }) => {
  const body = { corpus: CORPUS, paperId: PAPER, k: 3 };
  const attacks: Record<string, string>[] = [
    { origin: "https://evil.example", "sec-fetch-site": "cross-site" },
    { origin: "https://evil.example" },
    { origin: "null" },
    { "sec-fetch-site": "same-site", origin: "http://sub.evil.example" },
  ];
  for (const headers of attacks) {
    const res = await request.post("/api/related", { data: body, headers: { ...headers, "x-forwarded-for": "198.18.0.1" } });
    expect(res.status(), JSON.stringify(headers)).toBe(403);
  }
  const same = await request.post("/api/related", {
    data: body,
    headers: { origin: baseURL as string, "sec-fetch-site": "same-origin", "x-forwarded-for": "198.18.0.2" },
  });
  expect(same.status()).not.toBe(403);
  const cli = await request.post("/api/related", { data: body, headers: { "x-forwarded-for": "198.18.0.3" } });
  expect(cli.status()).not.toBe(403);
});

test("a flood of queries from one client gets 429 with Retry-After; another client is still served", async ({ request }) => {
  const flood = "198.18.1.1";
  const statuses: number[] = [];
  let refused: APIResponse | null = null;
  // The server says its burst size (RateLimit-Limit): flood a little past it, whatever it is configured to.
  let budget = 50;
  for (let i = 0; i < budget && !refused; i++) {
    // BM25 answers in milliseconds, so the flood outpaces the bucket's refill (1 token/s by default)
    // whatever the default retriever costs per query.
    const res = await request.get(`/api/papers/${CORPUS}/${PAPER}/related?k=2&retriever=bm25`, { headers: { "x-forwarded-for": flood } });
    if (i === 0) budget = Number(res.headers()["ratelimit-limit"]) + 10;
    statuses.push(res.status());
    if (res.status() === 429) refused = res;
  }
  expect(refused, `statuses: ${statuses.join(",")}`).not.toBeNull();
  expect(Number(refused!.headers()["retry-after"])).toBeGreaterThanOrEqual(1);
  expect((await refused!.json()).error.code).toBe("rate_limited");
  expect(statuses.filter((s) => s === 429).length).toBe(1);
  // Another client is unaffected, and the flooding client is still refused.
  const other = await request.get(`/api/papers/${CORPUS}/${PAPER}/related?k=2`, { headers: { "x-forwarded-for": "198.18.1.2" } });
  expect(other.status()).not.toBe(429);
  const again = await request.get(`/api/papers/${CORPUS}/${PAPER}/related?k=2`, { headers: { "x-forwarded-for": flood } });
  expect(again.status()).toBe(429);
});

test("uploads are rate-limited more tightly than queries", async ({ request }) => {
  const statuses: number[] = [];
  let uploadBurst = 0;
  for (let i = 0; i < 60 && !statuses.includes(429); i++) {
    const res = await request.post("/api/related", {
      multipart: { corpus: CORPUS, file: { name: "tiny.txt", mimeType: "text/plain", buffer: Buffer.from("too short") } },
      headers: { "x-forwarded-for": "198.18.2.1" },
    });
    if (i === 0) uploadBurst = Number(res.headers()["ratelimit-limit"]);
    statuses.push(res.status());
  }
  expect(statuses.indexOf(429), statuses.join(",")).toBe(uploadBurst);
  const query = await request.get(`/api/papers/${CORPUS}/${PAPER}/related?k=2`, { headers: { "x-forwarded-for": "198.18.2.2" } });
  expect(uploadBurst).toBeLessThan(Number(query.headers()["ratelimit-limit"]));
});

test("an oversized upload is refused with 413 before the route reads it", async ({ request }) => {
  const big = Buffer.alloc(25 * 1024 * 1024, 0x41); // past the 20 MB default upload limit
  const res = await request.post("/api/related", {
    multipart: { corpus: CORPUS, file: { name: "huge.pdf", mimeType: "application/pdf", buffer: big } },
    headers: { "x-forwarded-for": "198.18.3.1" },
  });
  expect(res.status()).toBe(413);
  expect((await res.json()).error.code).toBe("too_large");
  const json = await request.post("/api/corpora", { data: { pad: "x".repeat(2 * 1024 * 1024) }, headers: { "x-forwarded-for": "198.18.3.2" } });
  expect(json.status(), "JSON routes accept at most 1 MB").toBe(413);
});

test("a body of unknown length (chunked) is refused with 411; an HTML body type with 415", async ({ baseURL, request }) => {
  const url = new URL("/api/related", baseURL);
  const status = await new Promise<number>((resolve, reject) => {
    const req = http.request(
      url,
      { method: "POST", headers: { "content-type": "application/json", "transfer-encoding": "chunked", "x-forwarded-for": "198.18.4.1" } },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    );
    req.on("error", reject);
    req.write(`{"corpus":"${CORPUS}",`);
    req.end(`"paperId":"${PAPER}"}`);
  });
  expect(status).toBe(411);
  const html = await request.post("/api/related", {
    data: "<script>alert(1)</script>",
    headers: { "content-type": "text/html", "x-forwarded-for": "198.18.4.2" },
  });
  expect(html.status()).toBe(415);
});

test("a large body within the upload limit reaches the route whole (not truncated at the proxy)", async ({ request }) => {
  // 12 MB of JSON whose last field is invalid: a whole body fails validation on that field,
  // a truncated one would fail as invalid JSON instead.
  const data = `{"corpus":"${CORPUS}","text":"${"word ".repeat((12 * 1024 * 1024) / 5)}","k":"not a number"}`;
  const res = await request.post("/api/related", { data, headers: { "content-type": "application/json", "x-forwarded-for": "198.18.5.1" } });
  const body = await res.json();
  expect(res.status(), JSON.stringify(body).slice(0, 300)).toBe(400);
  expect(body.error.code).not.toBe("invalid_json");
});

test("an uploaded HTML file is answered as JSON, never executed or served back", async ({ request }) => {
  const before = readdirSync(PUBLIC_DIR).sort();
  const name = `evil-${Date.now()}.html`;
  const payload = `<html><body><script>document.title="pwned"</script>We study low-resource neural machine translation with back-translation of monolingual data and report BLEU gains on four language pairs over strong baselines.</body></html>`;
  const res = await request.post("/api/related", {
    multipart: { corpus: CORPUS, file: { name, mimeType: "text/html", buffer: Buffer.from(payload) } },
    headers: { "x-forwarded-for": "198.18.6.1" },
  });
  expect(res.headers()["content-type"]).toMatch(/^application\/json/);
  expect(res.headers()["x-content-type-options"]).toBe("nosniff");
  expect(res.headers()["content-disposition"] ?? "").not.toMatch(/inline/);
  // Whatever it echoes is JSON-escaped data, never a raw document.
  expect(await res.text()).not.toMatch(/^\s*<html/i);
  for (const url of [`/${name}`, `/uploads/${name}`, `/api/uploads/${name}`, `/_next/static/${name}`]) {
    const got = await request.get(url);
    expect(got.status(), url).toBe(404);
    expect(await got.text(), url).not.toContain('document.title="pwned"');
  }
  expect(readdirSync(PUBLIC_DIR).sort(), "nothing was written where the server serves static files").toEqual(before);
});

test("the admin jobs API needs an admin session", async ({ request }) => {
  const list = await request.get("/api/admin/jobs");
  expect(list.status()).toBe(401);
  const start = await request.post("/api/admin/jobs", { data: { stage: "graph", params: {} } });
  expect(start.status()).toBe(401);
});

// ── the admin jobs area: access control, then the live console driven through the queue ──

const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const PASSWORD = "e2e-password-ops-1";

test.describe("admin jobs area", () => {
  test.describe.configure({ mode: "serial" });
  const admin = `ops-admin-${RUN}@e2e.test`;
  const annotator = `ops-ann-${RUN}@e2e.test`;
  test.beforeAll(async () => {
    await createUser(getDb(), { email: admin, name: "Ops Admin", password: PASSWORD, role: "admin" }, { rounds: E2E_BCRYPT_ROUNDS });
    await createUser(getDb(), { email: annotator, name: "Ops Annotator", password: PASSWORD, role: "annotator" }, { rounds: E2E_BCRYPT_ROUNDS });
  });
  test.afterAll(() => disconnectDb());

  test("signed-out visitors go to sign-in; annotators get a 404 page and a 403 API", async ({ page, browser }) => {
    await page.goto("/admin/jobs");
    await expect(page).toHaveURL(/\/login\?next=%2Fadmin%2Fjobs$/);
    const ann = await signedInPage(browser, annotator, PASSWORD);
    const res = await ann.goto("/admin/jobs");
    expect(res?.status()).toBe(404);
    const api = await ann.request.get("/api/admin/jobs");
    expect(api.status()).toBe(403);
  });

  test("an admin starts a graph build and follows its progress, log and error live; retry and cancel", async ({ browser }) => {
    const page = await signedInPage(browser, admin, PASSWORD);
    await page.goto("/admin/jobs");
    await expect(page.getByRole("heading", { level: 1, name: "Pipeline jobs" })).toBeVisible();
    // The server validates the stage's params and says which one is wrong.
    await page.getByLabel("Embedder").fill("word2vec");
    await page.getByRole("button", { name: "Start graph build" }).click();
    await expect(page.getByRole("form", { name: "Start a graph build" }).getByRole("alert")).toContainText("embedder must be");
    await page.getByLabel("Embedder").fill("use-lite");
    await page.getByLabel("K", { exact: true }).fill("7");
    await page.getByRole("button", { name: "Start graph build" }).click();
    const panel = page.getByTestId("job-detail");
    await expect(panel).toContainText("graph");
    await expect(panel).toContainText("queued");
    // Wait for the row itself: in a store kept from an earlier run the panel may still show that
    // run's job while the request that queues this one is in flight.
    const queued = () => getDb().job.findFirst({ where: { stage: "graph", status: "queued", params: { contains: '"k":7' } }, orderBy: { id: "desc" } });
    await expect.poll(queued).not.toBeNull();
    const job = (await queued())!;

    // Play the worker's part with the queue's own calls: claim, progress, a log line, a failure.
    const worker = `e2e-host:1:${RUN.slice(-4).replace(/[^a-z0-9]/g, "x")}`;
    expect((await claimJob(getDb(), worker, { jobId: job.id }))?.id).toBe(job.id);
    await reportProgress(getDb(), job.id, worker, { progress: 0.42, done: 84, total: 200, message: "embed 84/200" });
    await appendJobLogs(getDb(), job.id, [{ level: "info", message: "item vectors: 84 of 200" }]);
    await expect(page.getByTestId("job-message")).toHaveText("42% · embed 84/200");
    await expect(page.getByRole("progressbar", { name: `Job ${job.id} progress` }).first()).toHaveAttribute("aria-valuenow", "42");
    await expect(page.getByTestId("job-log")).toContainText("item vectors: 84 of 200");
    await failJob(getDb(), job.id, worker, "out of memory while embedding (api_key=sk-e2esecretsecretsecret1234)");
    await expect(panel.getByRole("alert")).toContainText("out of memory while embedding");
    await expect(panel).not.toContainText("sk-e2esecret");

    await panel.getByRole("button", { name: "Retry" }).click();
    await expect(panel).toContainText("queued");
    await panel.getByRole("button", { name: "Cancel" }).click();
    await expect(panel).toContainText("cancelled");
    expect((await getDb().job.findUniqueOrThrow({ where: { id: job.id } })).status).toBe("cancelled");
  });
});
