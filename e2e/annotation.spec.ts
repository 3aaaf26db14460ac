import { readFileSync } from "node:fs";
import { expect, test, type Browser, type Page } from "@playwright/test";
import { binarize, gwetAc1, krippendorffAlpha } from "@/lib/annotation/agreement";
import { createStudy } from "@/lib/annotation/study";
import { createUser, type Role } from "@/lib/auth/users";
import { disconnectDb, getDb } from "@/lib/db/client";
import { E2E_BCRYPT_ROUNDS, signedInPage } from "./accounts";

// The facet-groundedness study end to end, against the e2e store (DATABASE_URL, demo corpus).
// The accounts are made here with the same lib functions the CLI uses; every run uses fresh
// emails, so the suite also passes against a store kept from an earlier run.

const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const PASSWORD = "e2e-password-1";
const users = {
  admin: { email: `admin-${RUN}@e2e.test`, name: "E2E Admin", role: "admin" as Role, id: 0 },
  a: { email: `ann-a-${RUN}@e2e.test`, name: "Annotator A", role: "annotator" as Role, id: 0 },
  b: { email: `ann-b-${RUN}@e2e.test`, name: "Annotator B", role: "annotator" as Role, id: 0 },
  c: { email: `ann-c-${RUN}@e2e.test`, name: "Annotator C", role: "annotator" as Role, id: 0 },
};

test.describe.configure({ mode: "serial" });

test.beforeAll(async () => {
  // bcrypt's minimum cost, as in lib/auth/auth.test.ts: these tests check access, not hashing strength.
  for (const u of Object.values(users))
    u.id = (await createUser(getDb(), { email: u.email, name: u.name, password: PASSWORD, role: u.role }, { rounds: E2E_BCRYPT_ROUNDS })).id;
});
test.afterAll(() => disconnectDb());

async function signIn(browser: Browser, email: string, password = PASSWORD): Promise<Page> {
  const page = await (await browser.newContext()).newPage();
  await page.goto("/login");
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Password").fill(password);
  await page.getByLabel("Password").press("Enter");
  await page.waitForURL(/\/(admin|annotate)$/);
  return page;
}

/** Which items of a user's sheet are core, in sheet order, and the core items in study order. */
async function sheetOf(studyId: number, userId: number) {
  const rows = await getDb().assignment.findMany({ where: { userId, studyItem: { studyId } }, orderBy: { position: "asc" }, include: { studyItem: true } });
  return rows.map((r) => ({ studyItemId: r.studyItemId, isCore: r.studyItem.isCore, studyPosition: r.studyItem.position }));
}

// Core items (in study order) get these scores from A and B; own items alternate 5, 4.
const CORE = { a: [5, 4, 3, 5], b: [5, 5, 3, 4] };

async function plannedScores(studyId: number, userId: number, core: number[]) {
  const sheet = await sheetOf(studyId, userId);
  const coreOrder = sheet
    .filter((e) => e.isCore)
    .sort((x, y) => x.studyPosition - y.studyPosition)
    .map((e) => e.studyItemId);
  let own = 0;
  return sheet.map((e) => (e.isCore ? core[coreOrder.indexOf(e.studyItemId)] : own++ % 2 === 0 ? 5 : 4));
}

/**
 * Rates items from..to-1 through the API the rating page calls to save (PUT, in the page's
 * signed-in context): for the items whose rating by keyboard would repeat what the others prove.
 */
async function rateByApi(page: Page, studyId: number, userId: number, scores: number[], from: number, to: number) {
  const sheet = await sheetOf(studyId, userId);
  for (let k = from; k < to; k++) {
    const res = await page.request.put(`/api/annotate/studies/${studyId}/items/${sheet[k].studyItemId}`, {
      data: { score: scores[k], rationale: `Stated (item ${k + 1}).` },
    });
    expect(res.status(), `item ${k + 1}`).toBe(200);
  }
}

/** Rates items from..to-1 with the keyboard only: the digit, the rationale, Enter. */
async function rateWithKeyboard(page: Page, scores: number[], from: number, to = scores.length) {
  const n = scores.length;
  for (let k = from; k < to; k++) {
    await expect(page.getByTestId("position")).toContainText(`Item ${k + 1} of ${n}`);
    await expect(page.getByTestId("item-text")).not.toHaveText("");
    await page.keyboard.press(String(scores[k]));
    await expect(page.getByRole("textbox", { name: /Rationale/ })).toBeFocused();
    await page.keyboard.type(`Stated (item ${k + 1}).`); // short: every character is a key press
    await page.keyboard.press("Enter");
    await expect(page.getByRole("button", { name: `Item ${k + 1}, rated ${scores[k]}` })).toBeVisible();
  }
}

test("an admin creates a study, two annotators rate by keyboard, the dashboard shows every statistic", async ({ browser }) => {
  test.setTimeout(180_000);
  // ── Admin: set up a study of 3 papers (12 items) with a one-paper core (4 items).
  const admin = await signIn(browser, users.admin.email);
  await expect(admin).toHaveURL(/\/admin$/);
  await admin.getByRole("link", { name: "New study" }).click();
  await admin.getByLabel("Study name").fill(`E2E study ${RUN}`);
  await admin.getByLabel(/^Papers/).fill("3");
  await admin.getByLabel(/^Shared core/).fill("4");
  await admin.getByLabel(users.a.email).check();
  await admin.getByLabel(users.b.email).check();
  await admin.getByLabel(/^Seed/).fill("7");
  await expect(admin.getByTestId("sheet-preview")).toHaveText("Sheets of 8, 8 items (16 ratings).");
  await admin.getByRole("button", { name: "Create study" }).click();
  await admin.waitForURL(/\/admin\/studies\/\d+$/);
  const studyId = Number(admin.url().split("/").pop());
  await expect(admin.getByRole("heading", { level: 1 })).toHaveText(`E2E study ${RUN}`);
  await expect(admin.getByText("0 of 16 ratings in")).toBeVisible();

  // ── Annotator A: rates items 1-3 by keyboard (4-8 were saved earlier, through the same API the
  // page calls), first giving item 3 a wrong score, then goes back with the arrow keys to edit it.
  const scoresA = await plannedScores(studyId, users.a.id, CORE.a);
  const a = await signIn(browser, users.a.email);
  await expect(a.getByRole("list", { name: "My studies" })).toContainText(`E2E study ${RUN}`);
  await rateByApi(a, studyId, users.a.id, scoresA, 3, 8);
  await a.goto(`/annotate/${studyId}`);
  await expect(a.getByTestId("position")).toContainText("Item 1 of 8"); // the first unrated item
  await expect(a.getByTestId("progress")).toHaveText("5 / 8");
  await expect(a.getByTestId("item-text")).not.toHaveText("");
  await a.screenshot({ path: test.info().outputPath("rating-view.png"), fullPage: true });
  const firstTry = [...scoresA];
  firstTry[2] = scoresA[2] === 1 ? 2 : 1;
  await rateWithKeyboard(a, firstTry, 0, 3);
  await expect(a.getByTestId("progress")).toHaveText("8 / 8");
  await expect(a.getByTestId("sheet-complete")).toBeVisible();
  for (let k = 4; k < 8; k++) await a.keyboard.press("ArrowRight");
  await expect(a.getByTestId("position")).toContainText("Item 8 of 8");
  for (let k = 0; k < 5; k++) await a.keyboard.press("ArrowLeft");
  await expect(a.getByTestId("position")).toContainText("Item 3 of 8");
  await a.keyboard.press(String(scoresA[2]));
  await a.keyboard.press("ControlOrMeta+a");
  await a.keyboard.type("Supported on rereading.");
  await a.keyboard.press("Enter");
  await expect(a.getByTestId("position")).toContainText("Item 4 of 8");
  await expect(a.getByRole("button", { name: `Item 3, rated ${scoresA[2]}` })).toBeVisible();
  await expect(a.getByTestId("progress")).toHaveText("8 / 8");
  // The edit is stored: after a reload the sheet shows it.
  await a.goto(`/annotate/${studyId}?item=${(await sheetOf(studyId, users.a.id))[2].studyItemId}`);
  await expect(a.getByRole("textbox", { name: /Rationale/ })).toHaveValue("Supported on rereading.");
  await expect(a.getByTestId("position")).toContainText("Item 3 of 8");
  await expect(a.locator('button[aria-pressed="true"]')).toContainText(String(scoresA[2]));

  // ── Annotator B: three items with Enter, the fourth saved by autosave alone; a reload resumes
  // where B left off; Enter without a score asks for one.
  const scoresB = await plannedScores(studyId, users.b.id, CORE.b);
  const b = await signIn(browser, users.b.email);
  await b.goto(`/annotate/${studyId}`);
  await rateWithKeyboard(b, scoresB, 0, 3);
  await b.keyboard.press(String(scoresB[3]));
  await b.keyboard.type("Autosaved without Enter.");
  await expect(b.getByTestId("save-status")).toHaveText("Saved.");
  await expect(b.getByTestId("progress")).toHaveText("4 / 8");
  // A reload stays on the item in the URL, with its autosaved rating …
  await b.reload();
  await expect(b.getByTestId("position")).toContainText("Item 4 of 8");
  await expect(b.getByRole("textbox", { name: /Rationale/ })).toHaveValue("Autosaved without Enter.");
  // … and opening the sheet again resumes at the first unrated item (5-7 saved meanwhile through
  // the API the page calls).
  await rateByApi(b, studyId, users.b.id, scoresB, 4, 7);
  await b.goto(`/annotate/${studyId}`);
  await expect(b.getByTestId("position")).toContainText("Item 8 of 8");
  await expect(b.getByTestId("progress")).toHaveText("7 / 8");
  await b.keyboard.press("Enter");
  await expect(b.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("Choose a score from 1 to 5 first.");
  await rateWithKeyboard(b, scoresB, 7);
  await expect(b.getByTestId("progress")).toHaveText("8 / 8");
  await expect(b.getByTestId("sheet-complete")).toBeVisible();

  // ── Admin: the dashboard, checked against the planned ratings.
  await admin.reload();
  await expect(admin.getByText("16 of 16 ratings in")).toBeVisible();
  const perAnnotator = admin.getByRole("table", { name: "Ratings per annotator" });
  for (const [u, scores] of [
    [users.a, scoresA],
    [users.b, scoresB],
  ] as const) {
    const row = perAnnotator.getByRole("row").filter({ hasText: u.email });
    const mean = scores.reduce((s, x) => s + x, 0) / scores.length;
    const ge4 = scores.filter((s) => s >= 4).length / scores.length;
    await expect(row).toContainText("8 / 8");
    await expect(row).toContainText(mean.toFixed(2));
    await expect(row).toContainText(`${(ge4 * 100).toFixed(1)}%`);
  }
  // Pooled over the 12 distinct items: A's and B's own items (5, 4, 5, 4 each) and the core
  // averages 5, 4.5, 3, 4.5 → 11 of 12 items ≥ 4, mean 53/12.
  await expect(admin.getByTestId("stat-pooled-share")).toContainText("91.7%");
  await expect(admin.getByTestId("stat-pooled-share")).toContainText(/11\/12 items \[\d+\.\d, \d+\.\d\]/);
  await expect(admin.getByTestId("stat-pooled-mean")).toContainText((53 / 12).toFixed(2));
  const facets = admin.getByRole("table", { name: "Pooled ratings by facet" });
  await expect(facets.getByRole("row")).toHaveCount(6);
  await expect(facets.getByRole("row").last()).toContainText("11/12 (91.7%)");
  // Core: (5,5) (4,5) (3,3) (5,4) → exact 2/4, within one 4/4, unanimously ≥ 4 3/4.
  await expect(admin.getByTestId("stat-exact")).toContainText("50.0%");
  await expect(admin.getByTestId("stat-within-one")).toContainText("100.0%");
  await expect(admin.getByTestId("stat-unanimous")).toContainText("75.0%");
  const pairs = admin.getByRole("table", { name: "Pairwise agreement" });
  await expect(pairs.getByRole("row").nth(1)).toContainText("50.0%");
  await expect(pairs.getByRole("row").nth(1)).toContainText("100.0%");
  const core = CORE.a.map((s, k) => [s, CORE.b[k]]);
  await expect(admin.getByTestId("stat-alpha-ordinal")).toContainText(krippendorffAlpha(core, "ordinal").alpha!.toFixed(2));
  await expect(admin.getByTestId("stat-alpha-ordinal")).toContainText(/\[-?\d\.\d\d, -?\d\.\d\d\]/);
  await expect(admin.getByTestId("stat-alpha-binary")).toContainText(krippendorffAlpha(binarize(core), "nominal").alpha!.toFixed(2));
  const ac1 = gwetAc1(binarize(core), [0, 1]);
  await expect(admin.getByTestId("stat-ac1")).toContainText(ac1.ac1.toFixed(2));
  await expect(admin.getByTestId("stat-ac1")).toContainText(`[${ac1.lower!.toFixed(2)}, ${ac1.upper!.toFixed(2)}]`);

  await admin.screenshot({ path: test.info().outputPath("dashboard.png"), fullPage: true });

  // Exports: every rating, and every statistic.
  const download = admin.waitForEvent("download");
  await admin.getByRole("link", { name: "Ratings CSV" }).click();
  const file = await (await download).path();
  const lines = readFileSync(file, "utf8").trimEnd().split("\r\n");
  expect(lines[0]).toBe("study_item_id,item_position,paper_id,paper_title,facet,item,core,annotator,score,rationale,updated_at");
  expect(lines).toHaveLength(17);
  expect(lines.filter((l) => l.includes(users.a.email))).toHaveLength(8);
  const stats = await admin.request.get(`/api/admin/studies/${studyId}/export?what=statistics`);
  expect(stats.headers()["content-type"]).toMatch(/^text\/csv/);
  const statsText = await stats.text();
  for (const name of ["krippendorff_alpha_ordinal", "krippendorff_alpha_binary_ge4", "gwet_ac1_ge4", "pairwise_exact", "within_one_all", "share_ge4"])
    expect(statsText).toContain(`,${name},`);
});

test("signed-out visitors and annotators cannot reach admin pages or other annotators' items", async ({ browser, playwright, baseURL }) => {
  test.setTimeout(90_000);
  const study = await createStudy(
    getDb(),
    { name: `Access ${RUN}`, corpus: "acl-citegraph", papers: 3, coreItems: 4, annotatorIds: [users.a.id, users.b.id], seed: 3 },
    users.admin.id,
  );
  const sheetA = await sheetOf(study.id, users.a.id);
  const sheetB = await sheetOf(study.id, users.b.id);
  const onlyA = sheetA.find((e) => !e.isCore)!;
  const shared = sheetA.find((e) => e.isCore)!;
  expect(sheetB.some((e) => e.studyItemId === onlyA.studyItemId)).toBe(false);
  const origin = { origin: baseURL! };
  const itemApi = (itemId: number) => `/api/annotate/studies/${study.id}/items/${itemId}`;

  // Signed out: pages send to the sign-in page (and back afterwards); APIs answer 401.
  const anon = await (await browser.newContext()).newPage();
  for (const path of ["/admin", `/admin/studies/${study.id}`, "/admin/users", `/annotate/${study.id}`]) {
    await anon.goto(path);
    await expect(anon).toHaveURL(`/login?next=${encodeURIComponent(path)}`);
  }
  const api = await playwright.request.newContext({ baseURL });
  for (const path of [
    "/api/admin/studies",
    "/api/admin/users",
    `/api/admin/studies/${study.id}`,
    `/api/annotate/studies/${study.id}`,
    itemApi(shared.studyItemId),
  ]) {
    const res = await api.get(path);
    expect(res.status(), path).toBe(401);
    expect((await res.json()).error.code).toBe("unauthorized");
  }
  expect((await api.put(itemApi(shared.studyItemId), { data: { score: 5, rationale: "No account." }, headers: origin })).status()).toBe(401);
  expect((await api.post("/api/admin/users", { data: { email: `x-${RUN}@e2e.test` }, headers: origin })).status()).toBe(401);
  // A wrong password is refused with one message for every failure.
  await anon.goto("/login");
  await anon.getByLabel("Email").fill(users.a.email);
  await anon.getByLabel("Password").fill("not-the-password");
  await anon.getByLabel("Password").press("Enter");
  await expect(anon.getByRole("alert").filter({ hasText: /\S/ })).toHaveText("Wrong email or password, or the account is disabled.");

  // An admin invites an annotator from the admin page: a generated password, shown once, signs
  // them in through the form; disabling the account locks them out again. (The others sign in
  // through the form's API: the first test signs in through the form.)
  const admin = await signedInPage(browser, users.admin.email, PASSWORD);
  await admin.goto("/admin/users");
  const invited = `ann-d-${RUN}@e2e.test`;
  await admin.getByLabel("Email").fill(invited);
  await admin.getByLabel("Name").fill("Annotator D");
  await admin.getByRole("button", { name: "Create" }).click();
  const generated = (await admin.getByTestId("generated-password").textContent())!;
  await expect(admin.getByRole("row").filter({ hasText: invited })).toContainText("annotator");
  const d = await signIn(browser, invited, generated);
  await expect(d).toHaveURL(/\/annotate$/);
  await admin.getByRole("row").filter({ hasText: invited }).getByRole("button", { name: "Disable" }).click();
  await expect(admin.getByRole("row").filter({ hasText: invited })).toContainText("disabled");
  expect((await d.request.get("/api/auth/me")).status()).toBe(401);

  // Annotator B: admin pages are not found, admin APIs forbidden.
  const b = await signedInPage(browser, users.b.email, PASSWORD);
  // Only the status is checked: the navigations need not wait for the page's load event.
  for (const path of ["/admin", "/admin/users", `/admin/studies/${study.id}`, "/admin/studies/new"]) {
    const res = await b.goto(path, { waitUntil: "commit" });
    expect(res?.status(), path).toBe(404);
  }
  for (const path of ["/api/admin/studies", "/api/admin/users", `/api/admin/studies/${study.id}`, `/api/admin/studies/${study.id}/export`]) {
    const res = await b.request.get(path);
    expect(res.status(), path).toBe(403);
    expect((await res.json()).error.code).toBe("forbidden");
  }
  expect(
    (await b.request.post("/api/admin/studies", { data: { name: "mine", annotatorIds: [users.b.id], coreItems: 0, papers: 1 }, headers: origin })).status(),
  ).toBe(403);
  expect((await b.request.patch(`/api/admin/users/${users.b.id}`, { data: { disabled: false }, headers: origin })).status()).toBe(403);

  // B cannot read or rate A's own item, and sees only their own rating of a shared one.
  expect((await b.request.get(itemApi(onlyA.studyItemId))).status()).toBe(404);
  expect((await b.request.put(itemApi(onlyA.studyItemId), { data: { score: 1, rationale: "Rating someone else's item." }, headers: origin })).status()).toBe(
    404,
  );
  expect(await getDb().rating.count({ where: { studyItemId: onlyA.studyItemId } })).toBe(0);
  const a = await signedInPage(browser, users.a.email, PASSWORD);
  expect((await a.request.put(itemApi(shared.studyItemId), { data: { score: 2, rationale: "A's private judgement." }, headers: origin })).status()).toBe(200);
  // A's rating view highlights the audit's grounding evidence in the abstract.
  const sharedItem = await getDb().studyItem.findUniqueOrThrow({ where: { id: shared.studyItemId }, include: { paper: true } });
  const sentence = sharedItem.paper.abstract.split(/(?<=\.)\s+/)[0];
  const before = await getDb().itemAudit.findUnique({ where: { facetItemId: sharedItem.facetItemId } });
  const evidence = JSON.stringify([{ text: sentence, score: 0.83, start: 0, end: sentence.length }]);
  await getDb().itemAudit.upsert({
    where: { facetItemId: sharedItem.facetItemId },
    create: { facetItemId: sharedItem.facetItemId, grounding: 0.83, evidence },
    update: { evidence },
  });
  try {
    await a.goto(`/annotate/${study.id}?item=${shared.studyItemId}`);
    await expect(a.getByTestId("abstract").locator("mark")).toHaveText(sentence);
    await expect(a.getByRole("region", { name: "Grounding evidence (audit)" })).toContainText("cosine 0.83");
  } finally {
    if (before) await getDb().itemAudit.update({ where: { id: before.id }, data: { evidence: before.evidence } });
    else await getDb().itemAudit.delete({ where: { facetItemId: sharedItem.facetItemId } });
  }
  const seenByB = await (await b.request.get(itemApi(shared.studyItemId))).json();
  expect(seenByB.rating).toBeNull();
  const sheetSeenByB = await (await b.request.get(`/api/annotate/studies/${study.id}`)).json();
  expect(sheetSeenByB.entries.map((e: { studyItemId: number }) => e.studyItemId)).toEqual(sheetB.map((e) => e.studyItemId));
  expect(sheetSeenByB.entries.every((e: { score: number | null }) => e.score === null)).toBe(true);

  // Annotator C has no sheet in this study: page and API answer 404.
  const c = await signedInPage(browser, users.c.email, PASSWORD);
  expect((await c.goto(`/annotate/${study.id}`, { waitUntil: "commit" }))?.status()).toBe(404);
  expect((await c.request.get(`/api/annotate/studies/${study.id}`)).status()).toBe(404);

  // Signing out ends the session: the old cookie no longer opens anything.
  await b.goto("/annotate");
  await b.getByRole("button", { name: "Sign out" }).click();
  await expect(b).toHaveURL(/\/login\?signedOut=1$/);
  expect((await b.request.get(`/api/annotate/studies/${study.id}`)).status()).toBe(401);
});
