import assert from "node:assert/strict";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { corpusPath, NO_CORPUS } from "@svc/docparse/test-corpus";
import { Client } from "@svc/sdk";
import { startTestServer, type TestServer } from "@svc/server";
import { missingPrerequisite } from "@svc/server/test-support";
import type { Page } from "puppeteer-core";
import { launchBrowser, missingBrowser, type TestBrowser } from "./browser.testing.ts";
import { buildConsole } from "./build.ts";

/** A corpus page with a table (the corpus tests skip without the shared corpus, as the parsing tests do). */
const PDF = ["docling/tests/data", "pdf/sources/2305.03393v1-pg9.pdf"];
/** A table of that page read as rows: the offline extractor fills it and cites each value. */
const SCHEMA = {
  type: "object",
  properties: {
    rows: {
      type: "array",
      items: {
        type: "object",
        properties: {
          language: { type: "string" },
          enc_layers: { type: "number", description: "# enc-layers" },
        },
        required: ["language", "enc_layers"],
      },
    },
  },
  required: ["rows"],
};
/** Every wait in a browser: generous, the machine may be loaded and the first sandbox builds the image. */
const WAIT = { timeout: 120_000 };
const SANDBOX_WAIT = { timeout: 600_000 };

const skip =
  missingBrowser() ??
  missingPrerequisite(["bwrap", "nsenter", "setpriv", "ip", "nft", "mkfs.ext4", "debootstrap"]);

/**
 * The console in a real browser against a real server with real sandboxes: sign in, a sandbox's terminal, a
 * PDF's boxes, an extraction's citations, a file system's tree, a key, and the phone layout.
 */
describe("web console in Chromium", { skip, timeout: 1_500_000 }, () => {
  let server: TestServer;
  let browser: TestBrowser;
  let page: Page;
  let dist: string;
  const screenshots = process.env.SVC_CONSOLE_SCREENSHOTS;

  before(async () => {
    dist = await mkdtemp(path.join(tmpdir(), "svc-console-dist-"));
    await buildConsole(dist);
    server = await startTestServer({ executor: "local", consoleDir: dist });
    browser = await launchBrowser();
    page = await browser.browser.newPage();
    page.setDefaultTimeout(WAIT.timeout);
    // Every WebSocket the page opens, so a test can drop one.
    await page.evaluateOnNewDocument(`{
      const Native = window.WebSocket;
      window.__sockets = [];
      window.WebSocket = class extends Native {
        constructor(url, protocols) {
          super(url, protocols);
          window.__sockets.push(this);
        }
      };
    }`);
    await page.setViewport({ width: 1280, height: 800 });
  });
  after(async () => {
    try {
      await browser?.close();
      if (server) {
        // The sandboxes the page created end before the server stops (their mounts hold the data directory).
        const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
        const { sandboxes } = await client.sandboxes.list();
        for (const record of sandboxes) {
          const sandbox = await client.sandboxes.get(record.id);
          await sandbox.delete().catch(() => undefined);
          for (let i = 0; i < 600 && (await sandbox.refresh()).status !== "terminated"; i++)
            await new Promise((r) => setTimeout(r, 100));
        }
      }
      await server?.stop();
    } finally {
      if (dist) await rm(dist, { recursive: true, force: true });
    }
  });

  const text = (selector: string) => page.$eval(selector, (e) => e.textContent ?? "");

  test("a wrong key is refused; the right one signs in and shows the project", async () => {
    await page.goto(server.url, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("input[name=apiKey]", WAIT);
    await page.type("input[name=apiKey]", "svc_apiKey_wrong");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      `document.querySelector(".status.error")?.textContent?.includes("UNAUTHORIZED")`,
      WAIT,
    );
    await page.$eval("input[name=apiKey]", (e) => {
      (e as unknown as { value: string }).value = "";
    });
    await page.type("input[name=apiKey]", server.apiKey);
    await page.keyboard.press("Enter");
    await page.waitForSelector("[data-testid=project]", WAIT);
    const whoami = (await (
      await fetch(`${server.url}/platform/v1/keys/introspect`, {
        method: "POST",
        headers: { authorization: `Bearer ${server.apiKey}` },
      })
    ).json()) as { projectId: string };
    assert.match(await text("[data-testid=project]"), new RegExp(whoami.projectId));
  });

  test("creates a sandbox, and its terminal runs what is typed", async () => {
    await page.goto(`${server.url}/#/sandboxes`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("input[name=name]", WAIT);
    await page.type("input[name=name]", "console-e2e");
    await page.click("form.card button[type=submit]");
    await page.waitForFunction(`location.hash.startsWith("#/sandbox/")`, WAIT);
    // Running, then the terminal connects (the first start may build the image).
    await page.waitForFunction(
      `document.querySelector(".term-state")?.textContent === "connected"`,
      SANDBOX_WAIT,
    );
    await page.click("[data-testid=terminal]");
    await page.keyboard.type("echo hi-$((40+2))\n");
    await page.waitForFunction(
      `(document.querySelector(".xterm-rows")?.textContent ?? "").includes("hi-42")`,
      WAIT,
    );
    // The files panel lists the sandbox's /tmp; the timeline saw it run.
    await page.waitForSelector(".files", WAIT);
    assert.match(await text(".timeline"), /running/);
    if (screenshots) await page.screenshot({ path: path.join(screenshots, "console-sandbox.png") });
  });

  test("a dropped terminal connection reconnects by itself, and the shell lives on", async () => {
    const sockets = (await page.evaluate("window.__sockets.length")) as number;
    await page.evaluate("window.__sockets.at(-1).close()");
    await page.waitForFunction(
      `window.__sockets.length > ${sockets} && document.querySelector(".term-state")?.textContent === "connected"`,
      WAIT,
    );
    await page.click("[data-testid=terminal]");
    await page.keyboard.type("echo again-$((6*7))\n");
    await page.waitForFunction(
      `(document.querySelector(".xterm-rows")?.textContent ?? "").includes("again-42")`,
      WAIT,
    );
  });

  test("a narrower window resizes the terminal's PTY", async () => {
    /** The PTY's size as the shell sees it, printed under a marker. */
    const ptySize = async (marker: string) => {
      await page.click("[data-testid=terminal]");
      await page.keyboard.type(`echo ${marker}=$(stty size | tr ' ' x)\n`);
      const pattern = `${marker}=(\\d+)x(\\d+)`;
      await page.waitForFunction(
        `new RegExp(${JSON.stringify(pattern)}).test(document.querySelector(".xterm-rows")?.textContent ?? "")`,
        WAIT,
      );
      const screen = await text(".xterm-rows");
      const match = new RegExp(pattern).exec(screen);
      assert.ok(match, screen);
      return { rows: Number(match[1]), cols: Number(match[2]) };
    };
    const wide = await ptySize("wide");
    await page.setViewport({ width: 700, height: 800 });
    // The fit follows the element's new width; the next size the shell reads is the narrower one.
    await page.waitForFunction(
      `document.querySelector(".xterm-screen")?.getBoundingClientRect().width < 690`,
      WAIT,
    );
    let narrow = await ptySize("narrow");
    for (let i = 0; i < 20 && narrow.cols >= wide.cols; i++) {
      await new Promise((r) => setTimeout(r, 250));
      narrow = await ptySize(`narrow${i}`);
    }
    assert.ok(narrow.cols < wide.cols, `${JSON.stringify(wide)} then ${JSON.stringify(narrow)}`);
    await page.setViewport({ width: 1280, height: 800 });
  });

  test("a PDF dropped on the page is uploaded, parsed, and its fragments' boxes drawn over the page image", {
    skip: NO_CORPUS,
  }, async () => {
    await page.goto(`${server.url}/#/documents`, { waitUntil: "domcontentloaded" });
    // Dropped on the drop zone as a file dragged from the desktop would be.
    await page.waitForSelector(".drop", WAIT);
    const base64 = (await readFile(corpusPath(...PDF))).toString("base64");
    await page.evaluate(`{
      const bytes = Uint8Array.from(atob(${JSON.stringify(base64)}), (c) => c.charCodeAt(0));
      const data = new DataTransfer();
      data.items.add(new File([bytes], "table-page.pdf", { type: "application/pdf" }));
      const zone = document.querySelector(".drop");
      zone.dispatchEvent(new DragEvent("dragover", { dataTransfer: data, bubbles: true, cancelable: true }));
      zone.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
    }`);
    await page.waitForFunction(`location.hash.startsWith("#/parse/")`, WAIT);
    await page.waitForSelector(".page img", WAIT);
    const boxes = await page.$$eval(".page .box", (all) => all.length);
    assert.ok(boxes >= 5, `${boxes} boxes`);
    // A fragment and its box are highlighted together.
    await page.focus(".fragments li[data-fragment]");
    const key = await page.$eval(".fragments li[data-fragment]", (e) => e.getAttribute("data-fragment"));
    assert.equal(
      await page.$eval(`.box[data-fragment="${key}"]`, (e) => e.classList.contains("active")),
      true,
    );
    await page.click("[data-tab=Markdown]");
    assert.match(await text(".markdown"), /Hyper Parameter Optimization/);
  });

  test("runs an extraction and boxes each cited value on its page", { skip: NO_CORPUS }, async () => {
    await page.click("[data-tab=Extraction]");
    await page.$eval(
      "textarea[name=schema]",
      (e, schema) => {
        (e as unknown as { value: string }).value = schema;
      },
      JSON.stringify(SCHEMA),
    );
    const before = (await page.evaluate("location.hash")) as string;
    await page.click("#tab-extraction-panel button[type=submit]");
    await page.waitForFunction(`location.hash !== ${JSON.stringify(before)}`, WAIT);
    await page.waitForSelector(".page .box.citation", WAIT);
    assert.ok((await page.$$eval(".box.citation", (all) => all.length)) >= 2);
    assert.match(await text(".extracted pre"), /OTSL/);
    if (screenshots) await page.screenshot({ path: path.join(screenshots, "console-viewer.png") });
  });

  test("shows a named file system's tree", async () => {
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    await client.fileSystems.create({ name: "console-fs" });
    await client.fileSystems.write("console-fs", "docs/readme.txt", "hello");
    await page.goto(`${server.url}/#/resources`, { waitUntil: "domcontentloaded" });
    const button = await page.waitForSelector("xpath/.//button[text()='console-fs']", WAIT);
    await button?.click();
    await page.waitForSelector("[role=tree]", WAIT);
    assert.match(await text("[role=tree]"), /docs\/.*readme\.txt/s);
  });

  test("creates a key with the admin token, lists and deletes it", async () => {
    await page.goto(`${server.url}/#/keys`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("input[name=adminToken]", WAIT);
    await page.type("input[name=adminToken]", server.adminToken);
    await page.keyboard.press("Enter");
    await page.waitForSelector("input[name=keyName]", WAIT);
    await page.type("input[name=keyName]", "from-console");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      `document.querySelector("table[aria-label=Keys]")?.textContent?.includes("from-console")`,
      WAIT,
    );
    const created = await text("[aria-label='New key']");
    assert.match(created, /^svc_apiKey_/);
    const check = await fetch(`${server.url}/platform/v1/keys/introspect`, {
      method: "POST",
      headers: { authorization: `Bearer ${created}` },
    });
    assert.equal(check.status, 200);
    page.once("dialog", (dialog) => dialog.accept());
    await page.click("button[aria-label='Delete key from-console']");
    await page.waitForFunction(
      `!document.querySelector("table[aria-label=Keys]")?.textContent?.includes("from-console")`,
      WAIT,
    );
    const gone = await fetch(`${server.url}/platform/v1/keys/introspect`, {
      method: "POST",
      headers: { authorization: `Bearer ${created}` },
    });
    assert.equal(gone.status, 401);
    assert.match(
      await text("[aria-label='SDK (TypeScript)']"),
      new RegExp(server.url.replace(/[.]/g, "\\.")),
    );
  });

  test("at phone width nothing is wider than the screen", async () => {
    await page.setViewport({ width: 375, height: 740, isMobile: true });
    for (const hash of ["#/sandboxes", "#/documents", "#/keys"]) {
      await page.goto(`${server.url}/${hash}`, { waitUntil: "domcontentloaded" });
      await page.waitForSelector("main h1", WAIT);
      const overflow = (await page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth",
      )) as number;
      assert.ok(overflow <= 1, `${hash} overflows by ${overflow}px`);
    }
    await page.setViewport({ width: 1280, height: 800 });
  });
});
