import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { after, describe, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Worker } from "node:worker_threads";
import { BackendRegistry } from "../backend.ts";
import { DOCX, officeConvertBackend } from "../backends/office-convert.ts";
import { parseDocument } from "../index.ts";
import { DOCUMENT_MODEL_VERSION, DocumentLoadError } from "../model.ts";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { OfficePool, officeAvailable, shutdownOfficePool } from "./pool.ts";

const skip = NO_CORPUS || (!officeAvailable() && "LibreOffice or python3-uno is not installed");
const legacy = (format: string) =>
  readFileSync(corpusPath("docling/tests/data", `${format}/sources/legacy_sample.${format}`));

/** soffice processes started by this test process (their pipe names carry its pid). */
function ourOffices(): string[] {
  try {
    return execFileSync("pgrep", ["-f", `svc-office-${process.pid}-`], { encoding: "utf8" })
      .trim()
      .split("\n");
  } catch {
    return [];
  }
}

/** The names stored in a zip's directory are plain text in its bytes. */
function zipNames(bytes: Uint8Array): string {
  assert.equal(Buffer.from(bytes.subarray(0, 2)).toString("latin1"), "PK");
  return Buffer.from(bytes).toString("latin1");
}

describe("LibreOffice pool", { skip }, () => {
  const pool = new OfficePool({ workers: 1 });
  after(async () => {
    await pool.shutdown();
    await shutdownOfficePool();
  });

  test("converts DOC, XLS and PPT into their OOXML twins, warm in well under a second", async () => {
    const docx = await pool.convert(legacy("doc"), "doc", "docx", "MS Word 2007 XML");
    assert.match(zipNames(docx), /word\/document\.xml/);
    const started = performance.now();
    const xlsx = await pool.convert(legacy("xls"), "xls", "xlsx", "Calc MS Excel 2007 XML");
    const pptx = await pool.convert(legacy("ppt"), "ppt", "pptx", "Impress MS PowerPoint 2007 XML");
    const warmMs = (performance.now() - started) / 2;
    assert.match(zipNames(xlsx), /xl\/workbook\.xml/);
    assert.match(zipNames(pptx), /ppt\/presentation\.xml/);
    // The target is 1 s; the margin is for a machine shared with other work.
    assert.ok(warmMs < 2000, `a warm conversion took ${warmMs.toFixed(0)} ms`);
    assert.equal(pool.size, 1);
  });

  test("soffice keeps its temporary files in the worker's directory, which goes with the worker", async () => {
    const others = new Set(ourOffices());
    const own = new OfficePool({ workers: 1 });
    await own.convert(legacy("doc"), "doc", "docx", "MS Word 2007 XML");
    const mine = ourOffices().filter((pid) => !others.has(pid));
    const dirs = mine.flatMap((pid) => {
      try {
        const env = readFileSync(`/proc/${pid}/environ`, "latin1").split("\0");
        return env.filter((v) => v.startsWith("TMPDIR=")).map((v) => v.slice("TMPDIR=".length));
      } catch {
        return [];
      }
    });
    assert.ok(dirs.length > 0, "no soffice of this process found");
    for (const dir of dirs) assert.match(path.basename(dir), /^svc-office-/);
    const theirs = dirs.filter((dir) => readdirSync(dir).some((name) => /^lu.*\.tmp$/.test(name)));
    assert.ok(theirs.length > 0, `no lu*.tmp in ${dirs.join(", ")}`);
    await own.shutdown();
    for (const dir of theirs) assert.equal(existsSync(dir), false, `${dir} left behind`);
  });

  test("a file LibreOffice cannot read is a DocumentLoadError, and the worker goes on", async () => {
    const truncated = legacy("doc").subarray(0, 4096);
    await assert.rejects(pool.convert(truncated, "doc", "docx", "MS Word 2007 XML"), DocumentLoadError);
    const again = await pool.convert(legacy("doc"), "doc", "docx", "MS Word 2007 XML");
    assert.match(zipNames(again), /word\/document\.xml/);
  });

  test("a conversion past the time limit ends its worker; the next one starts a new worker", async () => {
    const hasty = new OfficePool({ workers: 1, timeoutMs: 1 });
    try {
      await assert.rejects(
        hasty.convert(legacy("ppt"), "ppt", "pptx", "Impress MS PowerPoint 2007 XML"),
        (error) => error instanceof DocumentLoadError && /within/.test(error.message),
      );
      assert.equal(hasty.size, 0);
    } finally {
      await hasty.shutdown();
    }
  });

  test("DOC, XLS and PPT parse through the registry", async () => {
    const doc = await parseDocument({ bytes: legacy("doc"), mimeType: "application/msword" });
    assert.equal(doc.document.mimeType, "application/msword");
    assert.match(doc.result.markdown, /\S{20}/);
    const xls = await parseDocument({ bytes: legacy("xls"), mimeType: "application/vnd.ms-excel" });
    assert.ok(xls.document.items.some((item) => item.label === "table"));
    const ppt = await parseDocument({ bytes: legacy("ppt"), mimeType: "application/vnd.ms-powerpoint" });
    assert.ok(ppt.result.total_pages >= 1);
  });

  test("once a backend reads the OOXML twin, the converted bytes go to it", async () => {
    const received: { mimeType: string; bytes: Uint8Array }[] = [];
    const registry = new BackendRegistry([
      {
        name: "docx-reader",
        mimeTypes: [DOCX],
        load(input) {
          received.push({ mimeType: input.mimeType, bytes: input.bytes ?? new Uint8Array() });
          return {
            version: DOCUMENT_MODEL_VERSION,
            mimeType: DOCX,
            backend: "docx-reader",
            pages: [],
            items: [],
            warnings: [],
          };
        },
      },
    ]);
    registry.register(officeConvertBackend(registry));
    const { document } = await parseDocument(
      { bytes: legacy("doc"), mimeType: "application/msword" },
      registry,
    );
    assert.equal(document.backend, "libreoffice+docx-reader");
    assert.equal(document.mimeType, "application/msword");
    assert.equal(received[0]?.mimeType, DOCX);
    assert.match(zipNames(received[0].bytes), /word\/document\.xml/);
  });

  test("a file of another type declared as DOC is refused before LibreOffice sees it", async () => {
    await assert.rejects(
      parseDocument({ bytes: new TextEncoder().encode("plain words"), mimeType: "application/msword" }),
      (error) => error instanceof DocumentLoadError && /not a DOC document/.test(error.message),
    );
  });

  test("a parse thread that is terminated (as the server ends one past its time limit) leaves no soffice", async () => {
    // This process's other pools may run workers too: only the thread's new ones count.
    const before = new Set(ourOffices());
    const theirs = () => ourOffices().filter((pid) => !before.has(pid));
    const index = new URL("../index.ts", import.meta.url).href;
    const file = corpusPath("docling/tests/data", "xls/sources/legacy_sample.xls");
    const worker = new Worker(
      `import(${JSON.stringify(index)}).then(async (m) => {
        const { readFileSync } = await import("node:fs");
        const r = await m.parseDocument({ bytes: readFileSync(${JSON.stringify(file)}), mimeType: "application/vnd.ms-excel" });
        const { parentPort } = await import("node:worker_threads");
        // Stays alive, as a server's parse thread does, until it is terminated.
        parentPort.on("message", () => {});
        parentPort.postMessage(r.result.total_pages);
      });`,
      { eval: true },
    );
    const pages = await new Promise((resolve, reject) => {
      worker.once("message", resolve);
      worker.once("error", reject);
    });
    assert.equal(pages, 1);
    assert.ok(theirs().length > 0, "the thread's worker runs");
    await worker.terminate();
    for (let i = 0; i < 50 && theirs().length > 0; i++) await sleep(200);
    assert.deepEqual(theirs(), []);
  });

  test("shutting down leaves no soffice behind", async () => {
    const spare = new OfficePool({ workers: 1 });
    await spare.convert(legacy("xls"), "xls", "xlsx", "Calc MS Excel 2007 XML");
    await spare.shutdown();
    await pool.shutdown();
    await shutdownOfficePool();
    assert.deepEqual(ourOffices(), []);
    await assert.rejects(
      spare.convert(legacy("xls"), "xls", "xlsx", "Calc MS Excel 2007 XML"),
      DocumentLoadError,
    );
  });
});
