// Chromium (Debian's package) driven by playwright-core, for the tests of the
// pages: a hard requirement (a test that cannot run must not pass by being
// skipped), headless, and without its sandbox as root (it refuses to start
// there; CI containers run as root).

import fs from 'node:fs';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** Starts Chromium with `args` added (fake media devices, host rules); throws, naming the package, when it is not installed. */
export async function launchChromium(args: string[] = []): Promise<Browser> {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`${CHROMIUM} not found: this test needs Chromium. Install it with \`apt-get update && apt-get install -y chromium\` (.ci/run does).`);
  }
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...args, ...(process.getuid?.() === 0 ? ['--no-sandbox'] : [])] });
}
