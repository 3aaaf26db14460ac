import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";

// The Evaluation page reads reports/eval-latest.json (GRAFT_EVAL_REPORT) at request time: the
// committed report, written by `graft eval`, with the user-paper tables first.

// The committed report carries the user-paper tables (`graft eval --suite user-papers`).
const committed = JSON.parse(readFileSync("reports/eval-latest.json", "utf8")) as { userPapers?: unknown };

test("the Evaluation page shows the related papers for papers you bring first, then the paper's experiments", async ({ page }) => {
  expect(committed.userPapers, "reports/eval-latest.json has the user-paper tables").toBeTruthy();
  await page.goto("/eval");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("How good are the related papers?");
  const userPapers = page.getByRole("region", { name: "Related papers for papers you bring" });
  await expect(userPapers).toBeVisible();
  await expect(userPapers).toContainText("R@20 is the share of a query paper's gold that appears among the first 20");

  for (const set of [
    /^Papers users bring — set 1 \(\d+ out-of-corpus papers\)$/,
    /^Papers users bring — set 2 \(\d+ citing test papers queried as unseen, report half\)$/,
    /^Later work — set 3 \(\d+ train papers cited by test papers, queried as unseen, report half\)$/,
    /^Later work — set 3 .* imported without citations$/,
  ]) {
    const table = userPapers.getByRole("region", { name: set });
    await expect(table).toBeVisible();
    for (const source of [/LLM facets/, /Offline facets/]) {
      const t = table.getByRole("table", { name: source });
      await expect(t).toHaveCount(1);
      // Every row of the served pipeline, the default first, with figures.
      await expect(t.locator("tbody tr").first()).toHaveAttribute("data-method", "hybrid");
      await expect(t.locator('tr[data-method="hybrid"] td').nth(2)).toHaveText(/^0\.\d{3}\[0\.\d{3}, 0\.\d{3}\]$/);
      await expect(t.locator('tr[data-method="hybrid"] td').nth(4)).toHaveText(/^\d\.\d\d×/);
      // The rows the committed report ran (reports/eval-latest.md names the command); BM25 is every ratio's denominator.
      await expect(t.locator('tr[data-method="bm25"]')).toHaveCount(1);
    }
  }
  await expect(userPapers).toContainText("never returned and never a seed");

  // The paper's tables follow, the main one marked as a replication.
  const main = page.getByRole("region", { name: "Main results (in-corpus, test split)" });
  await expect(main).toContainText("A replication of the paper's in-corpus protocol, not a quality claim");
  const top = async (l: typeof main) => (await l.boundingBox())?.y ?? Number.NaN;
  expect(await top(userPapers)).toBeLessThan(await top(main));
});
