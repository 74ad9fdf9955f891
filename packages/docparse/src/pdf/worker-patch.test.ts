import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, test } from "node:test";
import {
  clip,
  endPath,
  PDFDocument,
  PDFName,
  PDFOperator,
  PDFOperatorNames,
  popGraphicsState,
  pushGraphicsState,
  rectangle,
  StandardFonts,
} from "pdf-lib";
import { OPS } from "pdfjs-dist/legacy/build/pdf.mjs";
import type { PDFPageProxy } from "pdfjs-dist/types/src/display/api.js";
import sharp from "sharp";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { closePdf, openPdf } from "./open.ts";
import { renderPage } from "./render.ts";
import { HELVETICA, onePagePdf } from "./test-pdf.ts";
import {
  decodeImage,
  PINNED_VERSION,
  patchedWorkerSource,
  WORKER_EDITS,
  WorkerPatchError,
} from "./worker-patch.ts";

/** Generous: the machine running the suite may be loaded. */
const TIMEOUT = 120_000;

/** A PDF of `pages` pages, each drawing one shared 64×64 black PNG at (100, 500) 200 pt wide and a line of text. */
async function imagePdf(pages: number): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  const png = await sharp({ create: { width: 64, height: 64, channels: 3, background: "#000000" } })
    .png()
    .toBuffer();
  const image = await doc.embedPng(png);
  const font = await doc.embedFont(StandardFonts.Helvetica);
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawImage(image, { x: 100, y: 392, width: 200, height: 200 });
    page.drawText(`Heading of page ${i + 1}`, { x: 100, y: 700, size: 36, font });
  }
  return doc.save();
}

/** Helvetica with a ToUnicode stream (object 6, passed as `objects`) mapping one-byte codes to UTF-16 hex ("" for none). */
function mappedHelvetica(map: Record<string, string>): { fonts: string[]; objects: string[] } {
  const entries = Object.entries(map).map(([code, text]) => `<${code}> <${text}>`);
  const body = [
    "/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapType 2 def",
    "1 begincodespacerange <00> <ff> endcodespacerange",
    `${entries.length} beginbfchar ${entries.join(" ")} endbfchar`,
    "endcmap CMapName currentdict /CMap defineresource pop end end",
  ].join("\n");
  return {
    fonts: [HELVETICA.replace(">>", "/ToUnicode 6 0 R >>")],
    objects: [`<< /Length ${body.length} >>\nstream\n${body}\nendstream`],
  };
}

/** The text pdf.js reads on page 1 of a PDF. */
async function pageText(pdf: Uint8Array): Promise<string> {
  const doc = await openPdf(pdf);
  try {
    const page = await doc.getPage(1);
    return (await page.getTextContent()).items.map((item) => ("str" in item ? item.str : "")).join("");
  } finally {
    await closePdf(doc);
  }
}

/** The object id of the first image paint operator of a page's operator list. */
async function imageObjId(page: PDFPageProxy): Promise<string> {
  const ops = await page.getOperatorList();
  const at = ops.fnArray.indexOf(OPS.paintImageXObject);
  assert.ok(at >= 0, "the page paints an image");
  return ops.argsArray[at][0] as string;
}

/** The share of pixels darker than mid-gray in a box of a gray PNG rendered at 72 dpi (points are pixels). */
async function darkShare(png: Buffer, box: { left: number; top: number; width: number; height: number }) {
  const { data } = await sharp(png).extract(box).greyscale().raw().toBuffer({ resolveWithObject: true });
  return data.filter((value) => value < 128).length / data.length;
}

describe("the patched pdf.js worker", () => {
  test("every edit applies to the installed pdfjs-dist, which is the pinned version", () => {
    const pkg = JSON.parse(
      readFileSync(new URL("../../../../node_modules/pdfjs-dist/package.json", import.meta.url), "utf8"),
    ) as { version: string };
    assert.equal(pkg.version, PINNED_VERSION);
    const worker = readFileSync(
      new URL("../../../../node_modules/pdfjs-dist/legacy/build/pdf.worker.mjs", import.meta.url),
      "utf8",
    );
    const patched = patchedWorkerSource(worker);
    for (const edit of WORKER_EDITS) assert.ok(patched.includes(edit.replace), edit.why);
  });

  test("an anchor missing, found twice or overlapping another, fails loudly instead of patching", () => {
    const edits = [{ why: "an edit", find: "needle", replace: "thread" }];
    assert.equal(patchedWorkerSource("hay needle hay", edits), "hay thread hay");
    assert.throws(() => patchedWorkerSource("hay hay", edits), WorkerPatchError);
    assert.throws(() => patchedWorkerSource("needle hay needle", edits), /found more than once/);
    // Edits apply wherever they stand in the source, whatever their order in the list, and never overlap.
    const two = [{ why: "a second edit", find: "hay", replace: "straw" }, ...edits];
    assert.equal(patchedWorkerSource("needle hay", two), "thread straw");
    const overlapping = [...edits, { why: "an overlapping edit", find: "dle h", replace: "x" }];
    assert.throws(() => patchedWorkerSource("a needle hay", overlapping), /inside another edit's anchor/);
  });

  test("an operator list leaves images undecoded until asked for, once; renders afterwards still draw images and text", {
    timeout: TIMEOUT,
  }, async () => {
    const doc = await openPdf(await imagePdf(3));
    try {
      const page = await doc.getPage(1);
      const id = await imageObjId(page);
      assert.equal(page.objs.has(id), false, "not decoded by the operator list");
      assert.equal(await decodeImage(page, id), true, "its decode was kept aside");
      const image = await new Promise<{ width: number; height: number; data: Uint8Array }>((resolve) =>
        page.objs.get(id, resolve),
      );
      assert.deepEqual([image.width, image.height], [64, 64]);
      assert.ok(
        image.data.length >= 64 * 64 * 3 && image.data.every((value, i) => value === 0 || i % 4 === 3),
      );
      assert.equal(await decodeImage(page, id), false, "asked twice: nothing left to decode");
      page.cleanup();
      for (let n = 2; n <= 3; n++) await imageObjId(await doc.getPage(n));
      // Renders after the operator list passes (of every page, so pdf.js caches the shared image document-wide
      // now) decode the image and build the glyphs themselves.
      for (const n of [3, 1, 2]) {
        const { png } = await renderPage(doc, n, { dpi: 72, grayscale: true });
        assert.ok(
          (await darkShare(png, { left: 110, top: 210, width: 180, height: 180 })) > 0.95,
          `image ${n}`,
        );
        const text = await darkShare(png, { left: 100, top: 60, width: 300, height: 40 });
        assert.ok(text > 0.05 && text < 0.8, `page ${n}: the text is drawn (${text})`);
      }
    } finally {
      await closePdf(doc);
    }
  });

  test("an image shared by pages whose operator lists left it undecoded is drawn by a later render", {
    timeout: TIMEOUT,
  }, async () => {
    const doc = await openPdf(await imagePdf(4));
    try {
      // From its second page on, pdf.js caches the image document-wide (its id starts with g_).
      const ids: string[] = [];
      for (let n = 1; n <= 4; n++) ids.push(await imageObjId(await doc.getPage(n)));
      assert.ok(ids[3].startsWith("g_"), ids[3]);
      const { png } = await renderPage(doc, 4, { dpi: 72, grayscale: true });
      assert.ok((await darkShare(png, { left: 110, top: 210, width: 180, height: 180 })) > 0.95);
    } finally {
      await closePdf(doc);
    }
  });

  test("an operator list keeps a gradient's geometry without its colours; a render paints its colours", {
    timeout: TIMEOUT,
  }, async () => {
    // An axial shading from black (left) to white (right) by a PostScript function, filling 400 × 200 pt.
    const pdf = await PDFDocument.create();
    const page = pdf.addPage([612, 792]);
    const fn = pdf.context.register(
      pdf.context.stream("{ dup mul }", { FunctionType: 4, Domain: [0, 1], Range: [0, 1] }),
    );
    const shading = pdf.context.register(
      pdf.context.obj({ ShadingType: 2, ColorSpace: "DeviceGray", Coords: [100, 0, 500, 0], Function: fn }),
    );
    page.node.set(PDFName.of("Resources"), pdf.context.obj({ Shading: { Sh1: shading } }));
    page.pushOperators(
      pushGraphicsState(),
      rectangle(100, 300, 400, 200),
      clip(),
      endPath(),
      PDFOperator.of(PDFOperatorNames.ShadingFill, [PDFName.of("Sh1")]),
      popGraphicsState(),
    );
    const doc = await openPdf(await pdf.save());
    try {
      const proxy = await doc.getPage(1);
      const ops = await proxy.getOperatorList();
      const at = ops.fnArray.indexOf(OPS.shadingFill);
      assert.ok(at >= 0, "the page fills a shading");
      const ir = await new Promise<unknown[]>((resolve) => proxy.objs.get(ops.argsArray[at][0], resolve));
      assert.equal(ir[0], "RadialAxial");
      assert.deepEqual(ir[3], [], "no colour stops");
      proxy.cleanup();
      const { png } = await renderPage(doc, 1, { dpi: 72, grayscale: true });
      const left = await darkShare(png, { left: 105, top: 300, width: 60, height: 180 });
      const right = await darkShare(png, { left: 420, top: 300, width: 60, height: 180 });
      assert.ok(left > 0.95 && right < 0.05, `rendered from black to white: ${left}, ${right}`);
    } finally {
      await closePdf(doc);
    }
  });

  test("a font's extra properties reach the main thread as its /Differences only", {
    timeout: TIMEOUT,
  }, async () => {
    const font =
      "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [65 /f_i] >> >>";
    const doc = await openPdf(onePagePdf("BT /F1 12 Tf 72 700 Td (AB) Tj ET", { fonts: [font] }));
    try {
      const page = await doc.getPage(1);
      const ops = await page.getOperatorList();
      const name = String(ops.argsArray[ops.fnArray.indexOf(OPS.setFont)][0]);
      const loaded = page.commonObjs.get(name) as Record<string, unknown>;
      assert.equal((loaded.differences as unknown[])[65], "f_i");
      for (const dropped of ["toUnicode", "widths", "toFontChar", "defaultEncoding"])
        assert.equal(loaded[dropped], undefined, dropped);
    } finally {
      await closePdf(doc);
    }
  });

  test("fonts with embedded Type1 and CFF programs read and render as with pdf.js as published", {
    skip: NO_CORPUS,
    timeout: TIMEOUT * 2,
  }, () => {
    // Type1 programs with their built-in encodings (TeX), and Type1C (CFF) subsets with custom encodings: their
    // OpenType files are built only when a render draws their glyphs, and never sent to the display side.
    const pdfs = ["code_and_formula.pdf", "redp5110_sampled.pdf"].map((name) =>
      corpusPath(`docling/tests/data/pdf/sources/${name}`),
    );
    const script = `
      const { readFileSync } = await import("node:fs");
      const { createHash } = await import("node:crypto");
      const { openPdf, closePdf } = await import(${JSON.stringify(new URL("./open.ts", import.meta.url).href)});
      const { renderPage } = await import(${JSON.stringify(new URL("./render.ts", import.meta.url).href)});
      const out = [];
      for (const file of ${JSON.stringify(pdfs)}) {
        const doc = await openPdf(new Uint8Array(readFileSync(file)));
        const fontFiles = [];
        for (let n = 1; n <= Math.min(doc.numPages, 3); n++) {
          const page = await doc.getPage(n);
          const text = await page.getTextContent();
          const ops = await page.getOperatorList();
          for (let i = 0; i < ops.fnArray.length; i++) {
            if (ops.fnArray[i] !== ${OPS.setFont}) continue;
            const font = page.commonObjs.get(ops.argsArray[i][0]);
            fontFiles.push(font.data === undefined ? 0 : font.data.length);
          }
          out.push(JSON.stringify(text.items.map((item) => [item.str, item.transform, item.width, item.hasEOL])));
        }
        for (const n of [1, 2]) {
          const { png } = await renderPage(doc, n, { dpi: 100, grayscale: true });
          out.push(createHash("sha256").update(png).digest("hex"));
        }
        out.push("fonts " + fontFiles.filter((size) => size > 0).length + "/" + fontFiles.length);
        await closePdf(doc);
      }
      console.log(JSON.stringify(out));
    `;
    const run = (env: Record<string, string>) => {
      const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
        env: { ...process.env, ...env },
        encoding: "utf8",
        timeout: TIMEOUT * 2,
        maxBuffer: 64 << 20,
      });
      assert.equal(child.status, 0, child.stderr);
      return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as string[];
    };
    const patched = run({});
    const published = run({ SVC_PDFJS_UNPATCHED: "1" });
    assert.equal(patched.length, published.length);
    for (let i = 0; i < patched.length; i++) {
      if (patched[i].startsWith("fonts ")) {
        // Published pdf.js sends every font's file to the display side; the patched one sends none.
        const [sent, fonts] = published[i].slice(6).split("/").map(Number);
        assert.ok(fonts > 0 && sent === fonts, published[i]);
        assert.equal(patched[i], `fonts 0/${fonts}`);
      } else assert.equal(patched[i], published[i], `output ${i}`);
    }
  });

  test("a cleanup drops the decodes not asked for", { timeout: TIMEOUT }, async () => {
    const doc = await openPdf(await imagePdf(1));
    try {
      const page = await doc.getPage(1);
      const id = await imageObjId(page);
      await doc.cleanup();
      assert.equal(await decodeImage(page, id), false);
    } finally {
      await closePdf(doc);
    }
  });

  test("a glyph mapped to nothing is no text when another glyph of its map carries several characters", {
    timeout: TIMEOUT,
  }, async () => {
    // A shaped word's text carried by its last glyph ("ab" on B), the glyph before it mapped to nothing.
    const carried = mappedHelvetica({ 41: "", 42: "00610062", 43: "0063" });
    assert.equal(await pageText(onePagePdf("BT /F1 12 Tf 72 700 Td (ABC) Tj ET", carried)), "abc");
    // A map that gives nothing for its glyphs and carries no text elsewhere is broken: the codes stand in.
    const broken = mappedHelvetica({ 41: "", 42: "" });
    assert.equal(await pageText(onePagePdf("BT /F1 12 Tf 72 700 Td (AB) Tj ET", broken)), "AB");
  });

  test("a page's text is the same whether pdf.js's time slots never run out or run out every hundred operators", {
    timeout: TIMEOUT,
  }, async () => {
    // camelot's 12s0324: a stats table of dot leaders, whose text pass, cut where a slot ran out and resumed, read
    // a leader's dot as ' .' (the table's cells changed from run to run under load). Both timings are forced here
    // through the clock the slots read: frozen (never out) and a second later at every look (always out).
    const bytes = new Uint8Array(
      readFileSync(new URL("../../test/tables/camelot/12s0324.pdf", import.meta.url)),
    );
    const texts: string[] = [];
    const realNow = Date.now;
    for (const step of [0, 1000]) {
      const doc = await openPdf(bytes);
      try {
        const page = await doc.getPage(1);
        let now = realNow();
        Date.now = () => (now += step);
        try {
          const content = await page.getTextContent({ disableNormalization: true });
          texts.push(
            JSON.stringify(content.items.map((item) => ("str" in item ? [item.str, item.transform] : []))),
          );
        } finally {
          Date.now = realNow;
        }
      } finally {
        await closePdf(doc);
      }
    }
    assert.ok(texts[0].includes("Curfew and loitering law violations"));
    assert.equal(texts[1], texts[0]);
  });

  test("where the patched worker cannot be written, PDFs are read with pdf.js as published, with a warning", {
    timeout: TIMEOUT,
  }, () => {
    const open = new URL("./open.ts", import.meta.url).href;
    const fixture = new URL("./test-pdf.ts", import.meta.url).href;
    const script = `
      const { openPdf, closePdf } = await import(${JSON.stringify(open)});
      const { onePagePdf } = await import(${JSON.stringify(fixture)});
      const doc = await openPdf(onePagePdf("BT /F1 12 Tf 72 700 Td (Hello) Tj ET"));
      const page = await doc.getPage(1);
      const text = (await page.getTextContent()).items.map((item) => item.str).join("");
      await closePdf(doc);
      console.log(JSON.stringify({ text, patched: Boolean(globalThis.pdfjsWorker?.svcPatched) }));
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { ...process.env, TMPDIR: "/nonexistent/svc-test" },
      encoding: "utf8",
      timeout: TIMEOUT,
    });
    assert.equal(run.status, 0, run.stderr);
    assert.deepEqual(JSON.parse(run.stdout.trim().split("\n").at(-1) ?? ""), {
      text: "Hello",
      patched: false,
    });
    assert.match(run.stderr, /pdf\.js runs unpatched/);
  });
});
