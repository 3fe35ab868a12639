import { chromium, type Browser } from 'playwright-core';

// The browser the browser tests drive: Debian's Chromium, which CI installs (.ci/run);
// CHROMIUM_PATH points elsewhere. Pages are checked at a phone's width and a desktop's.

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const CHROMIUM_FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic',
  '--no-first-run', '--disable-background-networking', '--disable-component-update',
  '--disable-sync'];
export const WIDTHS = [390, 1280] as const;
export const HEIGHT = 844;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS });
}
