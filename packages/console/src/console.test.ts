import assert from "node:assert/strict";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { corpusPath, NO_CORPUS } from "@svc/docparse/test-corpus";
import { Client } from "@svc/sdk";
import { startTestServer, type TestServer } from "@svc/server";
import { missingPrerequisite, SANDBOX_TOOLS } from "@svc/server/test-support";
import type { Page } from "puppeteer-core";
import {
  accessibilityViolations,
  launchBrowser,
  missingBrowser,
  type TestBrowser,
} from "./browser.testing.ts";
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

const skip = missingBrowser() ?? missingPrerequisite(SANDBOX_TOOLS);

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
  /** The sandbox the page creates, and the parse job the viewer shows (set by the tests that make them). */
  let sandboxId = "";
  let parseHash = "";

  before(async () => {
    dist = await mkdtemp(path.join(tmpdir(), "svc-console-dist-"));
    await buildConsole(dist);
    server = await startTestServer({ executor: "local", consoleDir: dist });
    browser = await launchBrowser();
    page = await browser.browser.newPage();
    page.setDefaultTimeout(WAIT.timeout);
    // Every WebSocket the page opens, so a test can drop one; every Blob it offers as a download.
    await page.evaluateOnNewDocument(`{
      window.__downloads = [];
      const createObjectURL = URL.createObjectURL;
      URL.createObjectURL = (blob) => {
        window.__downloads.push(blob);
        return createObjectURL.call(URL, blob);
      };
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
  /** The page as it is now has no serious or critical WCAG A/AA violation (axe-core). */
  const assertAccessible = async (what: string) => {
    const violations = await accessibilityViolations(page);
    assert.deepEqual(violations, [], `${what}: ${JSON.stringify(violations, null, 1)}`);
  };
  /** Clicks the button named `label` in the table row that contains `rowText`. */
  const clickInRow = (rowText: string, label: string) =>
    page.evaluate(`{
      const button = [...document.querySelectorAll("tr")]
        .filter((r) => r.textContent.includes(${JSON.stringify(rowText)}))
        .flatMap((r) => [...r.querySelectorAll("button")])
        .find((b) => b.textContent === ${JSON.stringify(label)});
      if (!button) throw new Error(${JSON.stringify(`no ${label} button in a row with ${rowText}`)});
      button.click();
    }`);

  test("a wrong key is refused; the right one signs in and shows the project", async () => {
    await page.goto(server.url, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("input[name=apiKey]", WAIT);
    await assertAccessible("sign-in");
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
    await page.type("input[name=ports]", "8080");
    await page.click("input[name=public]");
    await page.click("form.card button[type=submit]");
    await page.waitForFunction(`location.hash.startsWith("#/sandbox/")`, WAIT);
    sandboxId = ((await page.evaluate("location.hash")) as string).replace("#/sandbox/", "");
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
    // The files panel lists the sandbox's /tmp; the timeline saw it run, with the executor's own steps, as the
    // API tells them.
    await page.waitForSelector(".files", WAIT);
    assert.match(await text(".timeline"), /running/);
    await page.waitForSelector(".start-timeline li[data-step=launch]", WAIT);
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const timeline = await (await client.sandboxes.get(sandboxId)).startTimeline();
    const shown = await page.$$eval(".start-timeline li[data-step]", (all) =>
      all.map((li) => li.getAttribute("data-step")),
    );
    assert.deepEqual(
      shown,
      timeline.steps.map((s) => s.step),
    );
    for (const step of ["image", "cgroups", "launch"])
      assert.ok(shown.includes(step), `${step} in ${JSON.stringify(shown)}`);
    assert.ok(timeline.start_began_at !== null && timeline.running_at !== null);
    assert.ok(timeline.running_at >= timeline.start_began_at, JSON.stringify(timeline));
    assert.match(await text(".start-timeline"), /Waited .* for an executor; started in /);
    await assertAccessible("a sandbox's page");
    if (screenshots)
      await page.screenshot({ path: path.join(screenshots, "console-sandbox.png"), fullPage: true });
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

  test("files: a file uploaded into /tmp is listed, and downloads with the same bytes", async () => {
    const local = path.join(dist, "hello-console.txt");
    await writeFile(local, "bytes from the console test\n");
    const input = await page.waitForSelector("input[name=upload]", WAIT);
    await input?.uploadFile(local);
    await page.waitForSelector("button[aria-label='Download hello-console.txt']", WAIT);
    const before = (await page.evaluate("window.__downloads.length")) as number;
    await page.click("button[aria-label='Download hello-console.txt']");
    await page.waitForFunction(`window.__downloads.length > ${before}`, WAIT);
    assert.equal(await page.evaluate("window.__downloads.at(-1).text()"), "bytes from the console test\n");
  });

  test("processes: a started command is listed, and its output read", async () => {
    await page.type("input[name=command]", "echo proc-$((3*5))");
    await page.keyboard.press("Enter");
    await page.waitForFunction(
      `document.querySelector("table[aria-label=Processes]")?.textContent?.includes("proc-$((3*5))")`,
      WAIT,
    );
    // The output is read when asked; the command may still be running the first time.
    for (let i = 0; i < 100; i++) {
      await clickInRow("proc-$((3*5))", "Output");
      const shown = await page
        .waitForFunction(`document.querySelector("pre.log")?.textContent?.includes("proc-15")`, {
          timeout: 2000,
        })
        .then(() => true)
        .catch(() => false);
      if (shown) break;
    }
    assert.match(await text("pre.log"), /^proc-15$/m);
  });

  test("exposed ports: set at create, edited on the sandbox's page, each a link to its host name", async () => {
    assert.match(
      await page.$eval(".ports a", (a) => a.getAttribute("href") ?? ""),
      new RegExp(`^http://8080-${sandboxId}\\.sandbox\\.localhost:\\d+/$`),
    );
    await page.$eval("input[name=exposedPorts]", (e) => {
      (e as unknown as { value: string }).value = "";
    });
    await page.type("input[name=exposedPorts]", "8080 3000");
    await page.click("xpath/.//button[text()='Save ports']");
    await page.waitForFunction(`document.querySelectorAll(".ports a").length === 2`, WAIT);
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const record = await (await client.sandboxes.get(sandboxId)).refresh();
    assert.deepEqual(record.exposed_ports, [8080, 3000]);
    assert.equal(record.allow_unauthenticated_access, true);
    assert.doesNotMatch(await text(".ports"), /needs a key/);
    // A server in the sandbox on that port: the link opens it in the browser, with no key.
    await page.type("input[name=command]", "python3 -m http.server 8080 --directory /tmp");
    await page.keyboard.press("Enter");
    const href = await page.$eval(".ports a", (a) => a.getAttribute("href") ?? "");
    let body = "";
    for (let i = 0; i < 120 && !body.includes("hello-console.txt"); i++) {
      // Until the server inside listens, the proxy answers 502.
      const response = await page.goto(href, { waitUntil: "domcontentloaded" }).catch(() => null);
      body = response?.status() === 200 ? await response.text() : "";
      if (!body.includes("hello-console.txt")) await new Promise((r) => setTimeout(r, 500));
    }
    assert.match(body, /Directory listing[\s\S]*hello-console\.txt/);
    await page.goto(`${server.url}/#/sandbox/${sandboxId}`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(`document.querySelector(".term-state")?.textContent === "connected"`, WAIT);
  });

  test("snapshot, suspend and resume from the sandbox's page; the terminal comes back", async () => {
    const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
    const sandbox = await client.sandboxes.get(sandboxId);
    const enabled = (label: string) =>
      page.waitForFunction(
        `[...document.querySelectorAll(".actions button")].some((b) => b.textContent === ${JSON.stringify(label)} && !b.disabled)`,
        WAIT,
      );
    await enabled("Snapshot");
    await page.click("xpath/.//button[text()='Snapshot']");
    await page.waitForFunction(
      `/Snapshot snap_\\w+ started/.test(document.querySelector("p.status")?.textContent)`,
      WAIT,
    );
    const snapshotId = /Snapshot (snap_\w+) started/.exec(await text("p.status"))?.[1] ?? "";
    assert.equal((await client.snapshots.wait(snapshotId, { timeoutMs: 300_000 })).status, "completed");
    // The sandbox runs again once its disk is copied; the page's buttons follow its state.
    for (let i = 0; i < 600 && (await sandbox.refresh()).status !== "running"; i++)
      await new Promise((r) => setTimeout(r, 100));
    await enabled("Suspend");
    await page.click("xpath/.//button[text()='Suspend']");
    await page.waitForFunction(
      `document.querySelector(".facts")?.textContent?.includes("Statussuspended")`,
      WAIT,
    );
    assert.match(await text(".terminal-host"), /suspended/);
    await enabled("Resume");
    await page.click("xpath/.//button[text()='Resume']");
    await page.waitForFunction(`document.querySelector(".term-state")?.textContent === "connected"`, WAIT);
    await page.click("[data-testid=terminal]");
    await page.keyboard.type("echo back-$((20+1))\n");
    await page.waitForFunction(
      `(document.querySelector(".xterm-rows")?.textContent ?? "").includes("back-21")`,
      WAIT,
    );
  });

  test("a PDF dropped on the page is uploaded, parsed, and its fragments' boxes drawn over the page image", {
    skip: NO_CORPUS,
  }, async () => {
    await page.goto(`${server.url}/#/documents`, { waitUntil: "domcontentloaded" });
    // Dropped on the drop zone as a file dragged from the desktop would be.
    await page.waitForSelector(".drop", WAIT);
    // From the keyboard, the drop zone opens the file picker (its click seen, and kept from opening a dialog).
    await page.evaluate(`document.getElementById("document-file").addEventListener("click", (event) => {
      event.preventDefault();
      window.__picked = true;
    }, { once: true })`);
    await page.focus(".drop");
    await page.keyboard.press("Enter");
    await page.waitForFunction("window.__picked === true", WAIT);
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
    parseHash = (await page.evaluate("location.hash")) as string;
    const boxes = await page.$$eval(".page .box", (all) => all.length);
    assert.ok(boxes >= 5, `${boxes} boxes`);
    // A fragment and its box are highlighted together.
    await page.focus(".fragments li[data-fragment]");
    const key = await page.$eval(".fragments li[data-fragment]", (e) => e.getAttribute("data-fragment"));
    assert.equal(
      await page.$eval(`.box[data-fragment="${key}"]`, (e) => e.classList.contains("active")),
      true,
    );
    // The tabs: arrow keys move between them; markdown, JSON and tables each show the result.
    await page.focus("[data-tab=Fragments]");
    await page.keyboard.press("ArrowRight");
    assert.equal(await page.$eval("[data-tab=Markdown]", (e) => e.getAttribute("aria-selected")), "true");
    assert.equal(await page.evaluate("document.activeElement?.dataset.tab"), "Markdown");
    assert.match(await text(".markdown"), /Hyper Parameter Optimization/);
    await page.click("[data-tab=JSON]");
    assert.match(await text(".json"), new RegExp(`"parse_id": "${parseHash.replace("#/parse/", "")}"`));
    await page.click("[data-tab=Tables]");
    assert.match(await text("#tab-tables-panel"), /OTSL/);
    await page.click("[data-tab=Markdown]");
    await assertAccessible("the viewer");
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

  test("parses an uploaded file through a dataset, which lists it among its results", {
    skip: NO_CORPUS,
  }, async () => {
    await page.goto(`${server.url}/#/documents`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("input[name=datasetName]", WAIT);
    await assertAccessible("documents");
    await page.type("input[name=datasetName]", "console-ds");
    await page.keyboard.press("Enter");
    await page.waitForSelector("xpath/.//select[@name='dataset']/option[text()='console-ds']", WAIT);
    const value = await page.$eval("xpath/.//select[@name='dataset']/option[text()='console-ds']", (o) =>
      o.getAttribute("value"),
    );
    await page.select("select[name=dataset]", value ?? "");
    await page.waitForFunction(
      `[...document.querySelectorAll("tr")].some((r) => r.textContent.includes("table-page.pdf"))`,
      WAIT,
    );
    await clickInRow("table-page.pdf", "Parse");
    await page.waitForFunction(`location.hash.startsWith("#/parse/")`, WAIT);
    const parseId = ((await page.evaluate("location.hash")) as string).replace("#/parse/", "");
    await page.waitForFunction(`document.querySelector("[aria-label=Fragments] li") !== null`, WAIT);
    await page.goto(`${server.url}/#/documents`, { waitUntil: "domcontentloaded" });
    await page.waitForSelector("button[aria-label='Results of console-ds']", WAIT);
    await page.click("button[aria-label='Results of console-ds']");
    await page.waitForSelector(`a[href="#/parse/${parseId}"]`, WAIT);
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
    // The snapshot taken from the sandbox's page is listed.
    assert.match(await text("table[aria-label=Snapshots]"), new RegExp(sandboxId));
    await assertAccessible("pools, snapshots and file systems");
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
    await assertAccessible("keys");
  });

  test("at phone width nothing is wider than the screen", async () => {
    await page.setViewport({ width: 375, height: 740, isMobile: true });
    for (const hash of ["#/sandboxes", `#/sandbox/${sandboxId}`, "#/documents", parseHash, "#/keys"]) {
      if (!hash) continue; // the viewer's, without the corpus
      await page.goto(`${server.url}/${hash}`, { waitUntil: "domcontentloaded" });
      await page.waitForSelector("main h1", WAIT);
      const overflow = (await page.evaluate(
        "document.documentElement.scrollWidth - window.innerWidth",
      )) as number;
      assert.ok(overflow <= 1, `${hash} overflows by ${overflow}px`);
    }
    if (screenshots) {
      await page.goto(`${server.url}/${parseHash || "#/sandboxes"}`, { waitUntil: "domcontentloaded" });
      await page.waitForSelector(parseHash ? ".page img" : "main h1", WAIT);
      await page.screenshot({ path: path.join(screenshots, "console-phone.png") });
    }
    await page.setViewport({ width: 1280, height: 800 });
  });

  test("deletes the sandbox from its page; the list shows it terminated", async () => {
    await page.goto(`${server.url}/#/sandbox/${sandboxId}`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(
      `document.querySelector(".facts")?.textContent?.includes("Statusrunning")`,
      WAIT,
    );
    page.once("dialog", (dialog) => dialog.accept());
    await page.click("xpath/.//button[text()='Delete']");
    await page.waitForFunction(`location.hash === "#/sandboxes"`, WAIT);
    await page.waitForFunction(
      `document.querySelector("tr[data-sandbox=${sandboxId}] .badge")?.textContent === "terminated"`,
      WAIT,
    );
    await assertAccessible("sandboxes");
  });
});
