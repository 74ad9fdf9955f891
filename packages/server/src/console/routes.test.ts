import assert from "node:assert/strict";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import http from "node:http";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { gzipSync } from "node:zlib";
import { startTestServer, type TestServer } from "../testing.ts";
import { consoleFile } from "./routes.ts";

/** A GET with the path exactly as written (fetch would normalize `..`). */
function rawGet(port: number, urlPath: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: "127.0.0.1", port, path: urlPath }, (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on("error", reject);
  });
}

describe("the console's static files", () => {
  let dir: string;
  let built: TestServer;
  let unbuilt: TestServer;

  before(async () => {
    dir = await mkdtemp(path.join(tmpdir(), "svc-console-"));
    const root = path.join(dir, "dist");
    await mkdir(path.join(root, "assets"), { recursive: true });
    await writeFile(path.join(root, "index.html"), "<!doctype html><title>console</title>");
    await writeFile(path.join(root, "assets", "app.js"), "console.log('app');");
    await writeFile(path.join(root, "assets", "app.js.gz"), gzipSync("console.log('app');"));
    await writeFile(path.join(dir, "secret.txt"), "not for you");
    built = await startTestServer({ consoleDir: root });
    unbuilt = await startTestServer({ consoleDir: path.join(dir, "missing") });
  });
  after(async () => {
    await built?.stop();
    await unbuilt?.stop();
    await rm(dir, { recursive: true, force: true });
  });

  test("serves the page at / and its assets under /console/, gzipped when asked", async () => {
    const page = await fetch(`${built.url}/`);
    assert.equal(page.status, 200);
    assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
    assert.equal(await page.text(), "<!doctype html><title>console</title>");
    const script = await fetch(`${built.url}/console/assets/app.js`, {
      headers: { "accept-encoding": "gzip" },
    });
    assert.equal(script.status, 200);
    assert.match(script.headers.get("content-type") ?? "", /^text\/javascript/);
    assert.equal(script.headers.get("content-encoding"), "gzip");
    assert.equal(await script.text(), "console.log('app');");
    const plain = await rawGet(built.port, "/console/assets/app.js");
    assert.equal(plain.body, "console.log('app');");
  });

  test("paths that leave the folder, and missing files, are 404 ROUTE_NOT_FOUND", async () => {
    for (const urlPath of [
      "/console/../secret.txt",
      "/console/%2e%2e/secret.txt",
      "/console/assets/%2e%2e/%2e%2e/secret.txt",
      "/console/nope.js",
    ]) {
      const answer = await rawGet(built.port, urlPath);
      assert.notEqual(answer.body, "not for you", urlPath);
      assert.equal(answer.status, 404, urlPath);
      assert.equal((JSON.parse(answer.body) as { code: string }).code, "ROUTE_NOT_FOUND", urlPath);
    }
    assert.equal(consoleFile("/srv/console", "../etc/passwd"), null);
    assert.equal(consoleFile("/srv/console", "a/./b"), null);
    assert.equal(consoleFile("/srv/console", "a/b.js"), "/srv/console/a/b.js");
  });

  test("without a build the page is 503 CONSOLE_NOT_BUILT and the API still answers", async () => {
    const page = await fetch(`${unbuilt.url}/`);
    assert.equal(page.status, 503);
    assert.equal(((await page.json()) as { code: string }).code, "CONSOLE_NOT_BUILT");
    assert.equal((await fetch(`${unbuilt.url}/health`)).status, 200);
  });

  test("the console's routes are marked outside the contract", () => {
    const marked = built.app.servedRoutes.filter((r) => r.outsideContract).map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(marked.sort(), ["GET /", "GET /console/*"]);
  });
});
