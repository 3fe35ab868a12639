import type { Page } from 'playwright-core';
import { expect } from 'vitest';

// What every browser test checks of a page at one width: nothing scrolls sideways, and each of
// the texts that matter is visible. `label` names the page and width in a failure.
export async function expectLaidOut(page: Page, label: string, texts: readonly string[]) {
  const overflow = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  expect(overflow.scrollWidth, `${label} scrolls sideways`)
    .toBeLessThanOrEqual(overflow.clientWidth);
  for (const text of texts) {
    expect(await page.getByText(text, { exact: false }).first().isVisible(),
      `${label}: "${text}"`).toBe(true);
  }
}
