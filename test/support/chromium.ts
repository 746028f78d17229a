/** Where Chromium is and how it starts, for the journeys' shared browser (test/e2e/globalSetup.ts) and launchBrowser. */
export const CHROMIUM_FLAGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** Where Chromium is looked for: CHROMIUM_PATH, else Debian's package (`apt-get install chromium`). */
export function chromiumPath(): string {
  return process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
}
