import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser } from "puppeteer-core";

/**
 * Debian's Chromium driven by puppeteer-core, headless, with a throw-away profile. Null when it is not installed
 * (the reason is printed); CI=true makes that a failure, as for the executor's prerequisites.
 */
export const CHROMIUM = process.env.SVC_CHROMIUM ?? "/usr/bin/chromium";

export function missingBrowser(): string | undefined {
  if (existsSync(CHROMIUM)) return undefined;
  const reason = `no browser at ${CHROMIUM} (apt-get install chromium)`;
  if (process.env.CI === "true") throw new Error(`CI=true and ${reason}`);
  console.log(`# skipped: ${reason}`);
  return reason;
}

export interface TestBrowser {
  browser: Browser;
  close(): Promise<void>;
}

export async function launchBrowser(): Promise<TestBrowser> {
  const profile = await mkdtemp(path.join(tmpdir(), "svc-chromium-"));
  const browser = await puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    userDataDir: profile,
    // Root in a container: no setuid sandbox. No GPU, no /dev/shm limits, nothing fetched from the network.
    args: [
      "--no-sandbox",
      "--headless=new",
      "--disable-gpu",
      "--disable-dev-shm-usage",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-extensions",
    ],
    protocolTimeout: 240_000,
    timeout: 120_000,
  });
  return {
    browser,
    close: async () => {
      await browser.close().catch(() => browser.process()?.kill("SIGKILL"));
      await rm(profile, { recursive: true, force: true });
    },
  };
}
