/**
 * Web console benchmark: how soon the console paints and is usable in headless Chromium on loopback, against a
 * blank page served the same way, and the gzipped size of what it loads.
 *
 *   npx node bench/console-bench.ts [--runs 10]
 *
 * Prints, as medians over the runs (a fresh browser tab each, cache disabled): first contentful paint of the
 * console's page and of a blank page, and their ratio; time to usable (the sign-in form accepts input; signed in,
 * the sandboxes table is filled); the gzipped bytes of the console's own code and of xterm.js (loaded with a
 * sandbox's page only). The console is built into a temp dir and served by a real server (no executor).
 */
import { mkdtemp, rm } from "node:fs/promises";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { launchBrowser } from "../packages/console/src/browser.testing.ts";
import { buildConsole } from "../packages/console/src/build.ts";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({ options: { runs: { type: "string", default: "10" } } });
const runs = Number(values.runs);

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const dist = await mkdtemp(path.join(tmpdir(), "svc-console-bench-"));
const build = await buildConsole(dist);
const server = await startTestServer({ consoleDir: dist });
const blank = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
  res.end("<!doctype html><title>blank</title><p>blank</p>");
});
await new Promise<void>((resolve) => blank.listen(0, "127.0.0.1", resolve));
const blankUrl = `http://127.0.0.1:${(blank.address() as AddressInfo).port}/`;
const browser = await launchBrowser();

/** Loads a URL in a fresh tab and reads the paint timing, and how long until `ready` holds (ms from navigation). */
async function load(url: string, ready: string | null, before?: string) {
  const page = await browser.browser.newPage();
  await page.setCacheEnabled(false);
  await page.setViewport({ width: 1280, height: 800 });
  if (before) await page.evaluateOnNewDocument(before);
  await page.goto(url, { waitUntil: "load" });
  let usable = Number.NaN;
  if (ready) {
    await page.waitForFunction(ready, { timeout: 60_000 });
    usable = (await page.evaluate("performance.now()")) as number;
  }
  await page.waitForFunction("performance.getEntriesByName('first-contentful-paint').length > 0", {
    timeout: 60_000,
  });
  const paint = (await page.evaluate(
    "performance.getEntriesByName('first-contentful-paint')[0].startTime",
  )) as number;
  await page.close();
  return { paint, usable };
}

try {
  const console_: { paint: number; usable: number }[] = [];
  const signedIn: number[] = [];
  const blanks: number[] = [];
  const key = JSON.stringify(server.apiKey);
  for (let i = 0; i < runs + 1; i++) {
    const b = await load(blankUrl, null);
    const c = await load(`${server.url}/`, "document.querySelector('input[name=apiKey]') !== null");
    const s = await load(
      `${server.url}/#/sandboxes`,
      "document.querySelector('table[aria-label=Sandboxes] tbody tr') !== null",
      `sessionStorage.setItem("svc.apiKey", ${key})`,
    );
    if (i === 0) continue; // the first round warms the browser and the server
    blanks.push(b.paint);
    console_.push(c);
    signedIn.push(s.usable);
  }
  const fcp = median(console_.map((c) => c.paint));
  const fcpBlank = median(blanks);
  console.log(`runs: ${runs} (medians, cache disabled, loopback)`);
  console.log(
    `first contentful paint: console ${fcp.toFixed(0)} ms, blank page ${fcpBlank.toFixed(0)} ms, ratio ${(fcp / fcpBlank).toFixed(2)}`,
  );
  console.log(
    `usable: sign-in form ${median(console_.map((c) => c.usable)).toFixed(0)} ms; signed in, sandboxes listed ${median(signedIn).toFixed(0)} ms`,
  );
  console.log(
    `gzipped: console's own code ${(build.ownGzipBytes / 1024).toFixed(1)} KB (budget 300 KB), xterm.js chunk ${(build.terminalGzipBytes / 1024).toFixed(1)} KB`,
  );
} finally {
  await browser.close();
  blank.close();
  await server.stop();
  await rm(dist, { recursive: true, force: true });
}
