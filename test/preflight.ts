/**
 * `npm test`'s first step: what the tests need from the machine, checked before anything runs, each missing piece
 * said in one line with how to get it (the browser journeys need Chromium; Playwright cannot download its own here).
 */
import fs from "node:fs";

const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
let executable = false;
try {
  fs.accessSync(chromium, fs.constants.X_OK);
  executable = fs.statSync(chromium).isFile();
} catch {
  executable = false;
}
if (!executable) {
  console.error(`npm test needs Chromium at ${chromium}: install it (Debian: sudo apt-get install chromium) or set CHROMIUM_PATH.`);
  process.exit(1);
}
