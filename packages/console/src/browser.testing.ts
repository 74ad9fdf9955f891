import { existsSync } from "node:fs";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

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

/** One rule axe-core found broken, with where. */
export interface AccessibilityViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/**
 * The serious and critical WCAG 2.1 A/AA violations axe-core finds on the page as it is now (axe-core is run in
 * the page, from the dev dependency; nothing is fetched).
 */
export async function accessibilityViolations(page: Page): Promise<AccessibilityViolation[]> {
  const source = await readFile(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");
  if (!(await page.evaluate("typeof window.axe === 'object'"))) await page.evaluate(source);
  const result = (await page.evaluate(
    `axe.run(document, { runOnly: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"], resultTypes: ["violations"] })`,
  )) as { violations: { id: string; impact: string | null; help: string; nodes: { target: string[] }[] }[] };
  return result.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(" ")),
    }));
}
