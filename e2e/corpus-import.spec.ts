import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { createUser } from "@/lib/auth/users";
import { disconnectDb, getDb } from "@/lib/db/client";
import { E2E_BCRYPT_ROUNDS } from "./accounts";
import { SHOTS } from "./shots";

// "Bring your own papers" (issue 19) in the admin area: an admin uploads a BibTeX export into a
// new corpus and sees the counts, a broken file is refused line by line with nothing written,
// the same file again adds nothing, and the papers are in the corpus browser. A fresh admin and
// corpus name per run, so the spec also passes against a store kept from an earlier run.

const RUN = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
const ADMIN = { email: `importer-${RUN}@e2e.test`, password: "e2e-password-1" };
const CORPUS = `e2e-import-${RUN}`;
// Three papers of a Zotero (Better BibTeX) export, one without an abstract: the README's example.
const BIB = readFileSync(path.join(import.meta.dirname, "../docs/examples/import/zotero.bib"));

test.beforeAll(async () => {
  await createUser(getDb(), { email: ADMIN.email, name: "E2E Importer", password: ADMIN.password, role: "admin" }, { rounds: E2E_BCRYPT_ROUNDS });
});
test.afterAll(() => disconnectDb());

test("an admin imports a BibTeX file into a new corpus, is told why a broken one is refused, and browses the papers", async ({ page }) => {
  await page.goto("/login?next=/admin/corpora");
  await page.getByLabel("Email").fill(ADMIN.email);
  await page.getByLabel("Password").fill(ADMIN.password);
  await page.getByLabel("Password").press("Enter");
  await page.waitForURL(/\/admin\/corpora$/);
  await expect(page.getByRole("navigation", { name: "Study area" }).getByRole("link", { name: "Corpora" })).toHaveAttribute("aria-current", "page");

  const importFile = async (name: string, buffer: Buffer) => {
    await page.getByTestId("import-file").setInputFiles({ name, mimeType: "text/plain", buffer });
    await page.getByTestId("import-submit").click();
  };
  // A name filled before React hydrates the form is dropped (the note never appears; seen on a
  // loaded machine), so the fill is repeated until the form has taken it (as e2e/paste.ts does).
  await expect(async () => {
    await page.getByTestId("import-corpus").fill(CORPUS);
    await expect(page.getByTestId("import-corpus-note")).toHaveText("A new corpus.", { timeout: 1_000 });
  }).toPass();
  await importFile("reading-list.bib", BIB);
  await expect(page.getByTestId("import-summary")).toContainText(`reading-list.bib (BibTeX): 3 papers into the new corpus ${CORPUS}`);
  await expect(page.getByTestId("import-added")).toHaveText("3");
  await expect(page.getByTestId("import-present")).toHaveText("0");
  await expect(page.getByTestId("import-without-abstract")).toHaveText("1");
  await expect(page.getByTestId("import-next")).toContainText(`npm run graft -- extract --corpus ${CORPUS}`);
  // The page's corpus list is refreshed with the new corpus.
  await expect(page.locator(`[data-corpus="${CORPUS}"]`)).toContainText("3 papers");
  await page.screenshot({ path: path.join(SHOTS, "corpus-import.png"), fullPage: true });

  // A broken file: every problem as file:line, and the corpus keeps its three papers.
  const broken = Buffer.concat([BIB, Buffer.from("\n@misc{broken,\n  year = {2020}\n}\n")]);
  const brokenLine = broken.toString("utf8").split("\n").indexOf("@misc{broken,") + 1;
  await importFile("broken.bib", broken);
  await expect(page.getByTestId("import-error")).toContainText("broken.bib has a problem; nothing was imported.");
  await expect(page.getByTestId("import-issues")).toHaveText(`broken.bib:${brokenLine}: "title" is missing`);
  await expect(page.getByTestId("import-result")).toHaveCount(0);
  await page.screenshot({ path: path.join(SHOTS, "corpus-import-refused.png") });

  // The same file again: nothing new.
  await expect(page.getByTestId("import-corpus-note")).toHaveText(/^Adds to this corpus/);
  await importFile("reading-list.bib", BIB);
  await expect(page.getByTestId("import-summary")).toContainText(`3 papers into the corpus ${CORPUS}`);
  await expect(page.getByTestId("import-added")).toHaveText("0");
  await expect(page.getByTestId("import-present")).toHaveText("3");
  await expect(page.locator(`[data-corpus="${CORPUS}"]`)).toContainText("3 papers");

  // The corpus browser lists them.
  await page.getByTestId("import-browse").click();
  await expect(page).toHaveURL(new RegExp(`/papers\\?corpus=${CORPUS}$`));
  await expect(page.getByRole("heading", { level: 1, name: CORPUS })).toBeVisible();
  await expect(page.getByTestId("corpus-paper-count")).toHaveText("3");
  await expect(page.getByTestId("results-summary")).toHaveText("Showing 1–3 of 3 papers");
  for (const title of ["Attention Is All You Need", "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding"])
    await expect(page.getByRole("link", { name: title, exact: true })).toBeVisible();
  await expect(page.getByRole("link", { name: /Über Byte-Pair Encoding$/ })).toBeVisible();

  // The explorer's start page can now switch to it (issue 18: several corpora in one store).
  await page.goto("/");
  const corpusSwitch = page.getByRole("combobox", { name: "Corpus" });
  await expect(corpusSwitch.locator(`option[value="${CORPUS}"]`)).toHaveText(`${CORPUS} (3 papers)`);
  await corpusSwitch.selectOption(CORPUS);
  await expect(page).toHaveURL(new RegExp(`\\?corpus=${CORPUS}$`));
  await expect(corpusSwitch).toHaveValue(CORPUS);
});
