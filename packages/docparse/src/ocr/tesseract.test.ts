import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { after, describe, test } from "node:test";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import sharp from "sharp";
import { decodeImage, type PageRaster } from "../images/decode.ts";
import { box } from "../paginated/geometry.ts";
import { deskew, measureSkew, rotateKeepingSize } from "./deskew.ts";
import type { OcrOptions } from "./engine.ts";
import { type OcrPage, ocrEngineFor } from "./engine.ts";
import { OcrError } from "./ocr-error.ts";
import {
  parseOsd,
  recognizeWithTesseract,
  tesseractAvailable,
  tesseractEnv,
  tesseractInstallation,
} from "./tesseract.ts";
import { closeTesseractJs, recognizeWithTesseractJs, tesseractJsAvailable } from "./tesseract-js.ts";
import { CLEAN_PAGE_TEXT, doclingData, NO_CORPUS, renderTextPage, wordRecall } from "./test-support.ts";
import { parseTesseractTsv, toRunsAndLines } from "./tsv.ts";

after(closeTesseractJs);

const execFileAsync = promisify(execFile);

const corpusFile = (path: string) => readFile(doclingData(path));
const pageText = (page: OcrPage) => page.runs.map((r) => r.text).join(" ");

async function rasterOf(bytes: Uint8Array): Promise<PageRaster> {
  const [raster] = await decodeImage(bytes);
  return raster;
}

/** The words of the DocLayNet paper's page in Docling's reference, without the text inside its figures. */
async function paperPageText(pageNo: number): Promise<string> {
  const reference = JSON.parse(await readFile(doclingData("pdf/groundtruth/2206.01062.json"), "utf8")) as {
    texts: { text: string; parent: { $ref: string }; prov: { page_no: number }[] }[];
  };
  return reference.texts
    .filter((t) => t.prov[0]?.page_no === pageNo && !t.parent.$ref.startsWith("#/pictures/"))
    .map((t) => t.text)
    .join(" ");
}

const clean = await renderTextPage();
const cleanRaster = await rasterOf(clean.png);

type Recognize = (raster: PageRaster, options?: OcrOptions) => Promise<OcrPage>;

/** What every OCR engine must do, run against each engine this machine has. */
function engineContract(name: string, recognize: Recognize, skip: string | false) {
  describe(`${name}: OCR engine contract`, { skip }, () => {
    test("a clean 12 pt page at 300 dpi reads with ≥ 0.95 word recall, in points on the page", async () => {
      const page = await recognize(cleanRaster);
      const recall = wordRecall(clean.text, pageText(page));
      assert.ok(recall >= 0.95, `recall ${recall}`);
      assert.deepEqual([page.pageNumber, page.width, page.height, page.rotation], [1, 612, 792, 0]);
      for (const run of page.runs) {
        assert.equal(run.fontName, "ocr");
        assert.ok(run.confidence > 0 && run.confidence <= 1);
        assert.ok(run.box.x1 >= 0 && run.box.x2 <= 612 && run.box.y1 >= 0 && run.box.y2 <= 792);
        assert.ok(box.width(run.box) > 0 && box.height(run.box) > 0);
        // A line of 12 pt type is 12 to 16 points from its ascenders to its descenders.
        assert.ok(run.fontSize >= 9 && run.fontSize <= 17, `font size ${run.fontSize}`);
      }
      // The text starts one inch (72 pt) from the left and the top.
      const first = page.runs[0];
      assert.ok(
        Math.abs(first.box.x1 - 72) < 4 && first.box.y1 > 72 && first.box.y1 < 90,
        JSON.stringify(first.box),
      );
      // Lines group the runs in order, and every run names its line.
      assert.deepEqual(
        page.lines.flatMap((l) => l.runs),
        page.runs.map((_, i) => i),
      );
      for (const line of page.lines) {
        for (const i of line.runs) assert.equal(page.runs[i].lineId, line.id);
        assert.equal(line.text, line.runs.map((i) => page.runs[i].text).join(" "));
      }
    });

    test("a page upside down or sideways is turned upright and reads the same", async () => {
      const pages = await Promise.all(
        [90, 180, 270].map(async (angle) => ({
          angle,
          page: await recognize(await rasterOf(await sharp(clean.png).rotate(angle).toBuffer())),
        })),
      );
      for (const { angle, page } of pages) {
        assert.equal(page.rotation, (360 - angle) % 360, `turned ${angle}°`);
        assert.deepEqual([page.width, page.height], [612, 792]);
        const recall = wordRecall(clean.text, pageText(page));
        assert.ok(recall >= 0.95, `turned ${angle}°: recall ${recall}`);
      }
    });

    test("a page that runs out of time is stopped with OCR_TIMEOUT; a cancelled one with OCR_ABORTED", async () => {
      await assert.rejects(
        recognize(cleanRaster, { cpuLimitMs: 50 }),
        (e) => e instanceof OcrError && e.code === "OCR_TIMEOUT",
      );
      const controller = new AbortController();
      const pending = recognize(cleanRaster, { signal: controller.signal });
      setTimeout(() => controller.abort(), 50);
      await assert.rejects(pending, (e) => e instanceof OcrError && e.code === "OCR_ABORTED");
      // The engine still works afterwards.
      assert.ok((await recognize(cleanRaster)).runs.length > 100);
    });
  });
}

const cliMissing = !(await tesseractAvailable()) && "the tesseract program is not installed";
engineContract("tesseract", recognizeWithTesseract, cliMissing);
engineContract(
  "tesseract.js",
  recognizeWithTesseractJs,
  !tesseractJsAvailable() && "tesseract.js is not installed",
);

describe("tesseract program on the corpus", { skip: cliMissing }, () => {
  test("reports its version and languages", async () => {
    const installation = await tesseractInstallation();
    assert.match(installation?.version ?? "", /^\d+\.\d+/);
    assert.ok(installation?.languages.includes("eng"));
  });

  test("WebP: the reference text, word for word", { skip: NO_CORPUS }, async () => {
    const page = await recognizeWithTesseract(
      await rasterOf(await corpusFile("webp/sources/webp-test.webp")),
    );
    const reference = await readFile(
      doclingData("webp/groundtruth/tesseract/full_page/webp-test.tesseract.full_page.md"),
      "utf8",
    );
    assert.equal(wordRecall(reference, pageText(page)), 1);
    assert.deepEqual(
      page.lines.map((l) => l.text),
      [
        "Docling bundles PDF document conversion to",
        "JSON and Markdown in an easy self contained",
        "package",
      ],
    );
  });

  test("TIFF at 72 dpi: both pages read against the paper's reference text (pages 1 and 3 of the PDF)", {
    skip: NO_CORPUS,
  }, async () => {
    const pages = await decodeImage(await corpusFile("tiff/sources/2206.01062.tif"));
    const [first, second] = await Promise.all(pages.map((p) => recognizeWithTesseract(p)));
    // Measured 0.90 and 0.94; what is missed is mostly the reference joining words across line breaks
    // ("highquality") and 5-pixel footnotes.
    const recall1 = wordRecall(await paperPageText(1), pageText(first));
    const recall3 = wordRecall(await paperPageText(3), pageText(second));
    assert.ok(recall1 >= 0.85, `page 1 recall ${recall1}`);
    assert.ok(recall3 >= 0.88, `page 2 recall ${recall3}`);
    assert.deepEqual([first.width, first.height, first.rotation], [612, 792, 0]);
  });

  test("an old newspaper and a photographed bill: their printed words are found", {
    skip: NO_CORPUS,
  }, async () => {
    const [newspaper, bill] = await Promise.all([
      recognizeWithTesseract(await rasterOf(await corpusFile("ocr/sources/old_newspaper.png"))),
      recognizeWithTesseract(await rasterOf(await corpusFile("ocr/sources/qr_bill_example.jpg"))),
    ]);
    // Words in plain type (the logos' lettering is left out).
    const headline =
      "French Institute Creates Community Rochester Dunlop Cleaners Theatre Classified Fiestas Hours Sundry " +
      "Cosmetics Prescriptions Auburn Oakland University Observer";
    assert.ok(wordRecall(headline, pageText(newspaper)) >= 0.9, pageText(newspaper).slice(0, 300));
    const billWords =
      "Fictitious example for illustration purposes Pia Rutschmann Marktgasse 28 9400 Rorschach Robert Schneider " +
      "Garden work Disposal of cuttings Receipt Payment part Account Payable to";
    assert.ok(wordRecall(billWords, pageText(bill)) >= 0.9, pageText(bill).slice(0, 300));
    assert.equal(bill.width, (1021 * 72) / 300);
  });

  test("a photographed bill turned upside down reads as well as upright", { skip: NO_CORPUS }, async () => {
    const bytes = await corpusFile("ocr/sources/qr_bill_example.jpg");
    const [upright, turned] = await Promise.all([
      recognizeWithTesseract(await rasterOf(bytes)),
      recognizeWithTesseract(await rasterOf(await sharp(bytes).rotate(180).withDensity(300).toBuffer())),
    ]);
    assert.equal(turned.rotation, 180);
    assert.ok(wordRecall(pageText(upright), pageText(turned)) >= 0.95);
  });

  test("deskew: a page scanned 3° off (which Tesseract alone reads as empty) is straightened and read", async () => {
    const skewed = await rasterOf(await rotateKeepingSize(clean.png, 3));
    assert.equal(await measureSkew(skewed.png), 3);
    const straight = await deskew(skewed.png);
    assert.equal(straight.angle, 3);
    // What is left is less than deskew corrects (0.1°).
    assert.ok(Math.abs(await measureSkew(straight.png)) < 0.1);
    const page = await recognizeWithTesseract(skewed, { deskew: true });
    assert.equal(page.skewAngle, 3);
    assert.ok(wordRecall(clean.text, pageText(page)) >= 0.95);
    // A straight page is left as it is.
    assert.deepEqual(await deskew(cleanRaster.png), { png: cleanRaster.png, angle: 0 });
    const counterClockwise = await deskew((await rasterOf(await rotateKeepingSize(clean.png, -1.5))).png);
    assert.ok(Math.abs(counterClockwise.angle + 1.5) <= 0.05, `angle ${counterClockwise.angle}`);
  });

  test("ocrEngineFor maps every ocr_model to the local Tesseract", async () => {
    for (const model of ["model01", "model02", "model03", "gemini3"] as const) {
      assert.equal(ocrEngineFor(model).name, "tesseract");
    }
    const page = await ocrEngineFor("model03").recognize(cleanRaster);
    assert.match(page.engine, /^tesseract \d/);
    assert.ok(wordRecall(clean.text, pageText(page)) >= 0.95);
  });

  test("an unknown language is refused before anything runs", async () => {
    await assert.rejects(
      recognizeWithTesseract(cleanRaster, { language: "xyz" }),
      (e) => e instanceof OcrError && e.code === "OCR_UNAVAILABLE",
    );
    await assert.rejects(
      recognizeWithTesseract(cleanRaster, { language: "eng; rm -rf" }),
      (e) => e instanceof OcrError && e.code === "OCR_FAILED",
    );
  });
});

describe("the tesseract process's environment", () => {
  test("one OpenMP thread, and malloc asks for huge pages", () => {
    const env = tesseractEnv({ PATH: "/usr/bin" });
    assert.equal(env.PATH, "/usr/bin");
    assert.equal(env.OMP_THREAD_LIMIT, "1");
    assert.equal(env.GLIBC_TUNABLES, "glibc.malloc.hugetlb=1");
  });

  test("the caller's own tunables are kept, and its own hugetlb choice wins", () => {
    assert.equal(
      tesseractEnv({ GLIBC_TUNABLES: "glibc.malloc.arena_max=2" }).GLIBC_TUNABLES,
      "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1",
    );
    assert.equal(
      tesseractEnv({ GLIBC_TUNABLES: "glibc.malloc.hugetlb=0:glibc.malloc.arena_max=2" }).GLIBC_TUNABLES,
      "glibc.malloc.hugetlb=0:glibc.malloc.arena_max=2",
    );
  });
});

describe("TSV and OSD parsing", () => {
  const tsv = [
    "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext",
    "1\t1\t0\t0\t0\t0\t0\t0\t600\t800\t-1\t",
    "4\t1\t1\t1\t1\t0\t100\t100\t300\t40\t-1\t",
    "5\t1\t1\t1\t1\t1\t100\t105\t120\t30\t96.5\tHello",
    "5\t1\t1\t1\t1\t2\t240\t100\t160\t35\t91\tworld.",
    "5\t1\t1\t1\t1\t3\t420\t100\t10\t35\t-1\t ",
    "4\t1\t1\t2\t1\t0\t100\t200\t80\t20\t-1\t",
    "5\t1\t1\t2\t1\t1\t100\t200\t80\t20\t40\tBye",
  ].join("\n");

  test("words with text and a confidence become runs in points, grouped by line", () => {
    const parsed = parseTesseractTsv(tsv);
    assert.equal(parsed.words.length, 3);
    // 300 dpi: a pixel is 0.24 points.
    const { runs, lines } = toRunsAndLines(parsed, 72 / 300);
    assert.deepEqual(runs[0], {
      text: "Hello",
      box: { x1: 24, y1: 25.2, x2: 52.8, y2: 32.4 },
      fontName: "ocr",
      // 40 px of a line without descenders (ascender to baseline) is four fifths of its type size: 12 pt, not 9.6.
      fontSize: 12,
      bold: false,
      italic: false,
      dir: "ltr",
      confidence: 0.965,
      lineId: "1.1.1",
    });
    assert.deepEqual(
      lines.map((l) => [l.id, l.paragraphId, l.text, l.runs]),
      [
        ["1.1.1", "1.1", "Hello world.", [0, 1]],
        ["1.2.1", "1.2", "Bye", [2]],
      ],
    );
    assert.deepEqual(lines[0].box, { x1: 24, y1: 24, x2: 96, y2: 33.6 });
  });

  test("OSD's report gives the turn and its confidence", () => {
    const report = "Page number: 0\nOrientation in degrees: 90\nRotate: 270\nOrientation confidence: 10.02\n";
    assert.deepEqual(parseOsd(report), { rotation: 270, confidence: 10.02 });
    assert.equal(parseOsd("Too few characters. Skipping this page\n"), null);
  });

  test("the clean page's text is what the engines are measured on", () => {
    assert.ok(clean.text.split(" ").length > 200);
    assert.ok(CLEAN_PAGE_TEXT.startsWith(clean.text.slice(0, 40)));
  });
});

describe("without the tesseract program", {
  skip: !tesseractJsAvailable() && "tesseract.js is not installed",
}, () => {
  test("the local engine falls back to tesseract.js, offline", async () => {
    // A process whose PATH has no tesseract: the engine must read the page with tesseract.js from node_modules.
    const script = [
      `import { decodeImage } from ${JSON.stringify(new URL("../images/decode.ts", import.meta.url).href)};`,
      `import { ocrEngineFor } from ${JSON.stringify(new URL("./engine.ts", import.meta.url).href)};`,
      `import { closeTesseractJs } from ${JSON.stringify(new URL("./tesseract-js.ts", import.meta.url).href)};`,
      `import { renderTextPage, wordRecall } from ${JSON.stringify(new URL("./test-support.ts", import.meta.url).href)};`,
      "const clean = await renderTextPage({ heightIn: 4 });",
      "const [raster] = await decodeImage(clean.png);",
      'const page = await ocrEngineFor("model03").recognize(raster);',
      "await closeTesseractJs();",
      "console.log(JSON.stringify({ engine: page.engine, recall: wordRecall(clean.text, page.runs.map((r) => r.text).join(' ')) }));",
    ].join("\n");
    const { stdout } = await execFileAsync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, PATH: "/nonexistent" },
      cwd: fileURLToPath(new URL(".", import.meta.url)),
    });
    const result = JSON.parse(stdout.trim().split("\n").at(-1) ?? "{}") as { engine: string; recall: number };
    assert.equal(result.engine, "tesseract.js");
    assert.ok(result.recall >= 0.95, `recall ${result.recall}`);
  });
});
