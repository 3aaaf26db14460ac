import { expect, type Page } from "@playwright/test";

/**
 * Pastes `text` (long enough to search with) into the explorer's paste box, once the page can take
 * it: text filled before React hydrates the box is dropped (the box's state starts empty and the
 * button stays disabled; seen on a loaded machine), so the fill is repeated until the search
 * button is enabled.
 */
export async function pastePaper(page: Page, text: string): Promise<void> {
  const box = page.getByLabel("Title and abstract");
  const submit = page.getByRole("button", { name: "Find related papers" });
  await expect(async () => {
    await box.fill(text);
    await expect(submit).toBeEnabled({ timeout: 1_000 });
  }).toPass();
}
