import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import fontkit from "@pdf-lib/fontkit";
import { PDFDocument } from "pdf-lib";
import { corpusPath, NO_CORPUS } from "../test-corpus.ts";
import { FONT_EDITS } from "./font-edits.ts";
import { patchedWorkerSource } from "./worker-patch.ts";

/** Generous: the machine running the suite may be loaded. */
const TIMEOUT = 240_000;

const LIBERATION = createRequire(import.meta.url).resolve(
  "pdfjs-dist/standard_fonts/LiberationSans-Regular.ttf",
);

/**
 * A TrueType font with its glyphs stored in reverse order of their ids (the `loca` offsets then decrease), as a
 * font editor may write them: pdf.js then sorts the locations to find where each glyph ends.
 */
function reversedGlyphs(ttf: Uint8Array): Uint8Array {
  const out = new Uint8Array(ttf);
  const view = new DataView(out.buffer);
  const tables = new Map<string, { offset: number; length: number }>();
  for (let i = 0, n = view.getUint16(4); i < n; i++) {
    const at = 12 + 16 * i;
    const tag = String.fromCharCode(...out.subarray(at, at + 4));
    tables.set(tag, { offset: view.getUint32(at + 8), length: view.getUint32(at + 12) });
  }
  const head = tables.get("head");
  const maxp = tables.get("maxp");
  const loca = tables.get("loca");
  const glyf = tables.get("glyf");
  assert.ok(head && maxp && loca && glyf);
  const long = view.getInt16(head.offset + 50) === 1;
  const count = view.getUint16(maxp.offset + 4);
  const read = (i: number) =>
    long ? view.getUint32(loca.offset + 4 * i) : view.getUint16(loca.offset + 2 * i) * 2;
  const write = (i: number, value: number) =>
    long ? view.setUint32(loca.offset + 4 * i, value) : view.setUint16(loca.offset + 2 * i, value / 2);
  const glyphs = Array.from({ length: count }, (_, i) =>
    ttf.slice(glyf.offset + read(i), glyf.offset + read(i + 1)),
  );
  // Glyph data written last id first; each glyph's start recorded at its own id, the end of the table last.
  let at = 0;
  const starts: number[] = [];
  for (let i = count - 1; i >= 0; i--) {
    starts[i] = at;
    out.set(glyphs[i], glyf.offset + at);
    at += glyphs[i].length;
  }
  for (let i = 0; i < count; i++) write(i, starts[i]);
  write(count, at);
  return out;
}

/** A page of text in a TrueType font embedded whole (a CID font through Identity-H, as pdf-lib embeds it). */
async function trueTypePdf(ttf: Uint8Array): Promise<Uint8Array> {
  const doc = await PDFDocument.create();
  doc.registerFontkit(fontkit);
  const font = await doc.embedFont(ttf, { subset: false });
  const page = doc.addPage([400, 200]);
  page.drawText("Glyphs 0123 fit & end; Qu'y a-t-il?", { x: 20, y: 120, size: 18, font });
  page.drawText("AVATAR kerning W.", { x: 20, y: 60, size: 30, font });
  return doc.save();
}

/**
 * Each PDF's text items (first three pages) and renders (first two pages) as read by this thread's pdf.js, in a
 * child process: with the patch (env {}), or as published (SVC_PDFJS_UNPATCHED=1).
 */
function readAndRender(pdfs: string[], env: Record<string, string>): string[] {
  const script = `
    const { readFileSync } = await import("node:fs");
    const { createHash } = await import("node:crypto");
    const { openPdf, closePdf } = await import(${JSON.stringify(new URL("./open.ts", import.meta.url).href)});
    const { renderPage } = await import(${JSON.stringify(new URL("./render.ts", import.meta.url).href)});
    const out = [];
    for (const file of ${JSON.stringify(pdfs)}) {
      const doc = await openPdf(new Uint8Array(readFileSync(file)));
      for (let n = 1; n <= Math.min(doc.numPages, 3); n++) {
        const page = await doc.getPage(n);
        const text = await page.getTextContent();
        await page.getOperatorList();
        out.push(JSON.stringify([text.items.map((item) => [item.str, item.transform, item.width, item.height]), text.styles]));
      }
      for (let n = 1; n <= Math.min(doc.numPages, 2); n++) {
        const { png } = await renderPage(doc, n, { dpi: 100, grayscale: true });
        out.push(createHash("sha256").update(png).digest("hex"));
      }
      await closePdf(doc);
    }
    console.log(JSON.stringify(out));
  `;
  const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
    env: { ...process.env, ...env },
    encoding: "utf8",
    timeout: TIMEOUT,
    maxBuffer: 64 << 20,
  });
  assert.equal(child.status, 0, child.stderr);
  return JSON.parse(child.stdout.trim().split("\n").at(-1) ?? "") as string[];
}

describe("pdf.js font loading edits", () => {
  test("each edit applies once to the installed pdfjs-dist", () => {
    const source = readFileSync(
      createRequire(import.meta.url).resolve("pdfjs-dist/legacy/build/pdf.worker.mjs"),
      "utf8",
    );
    for (const edit of FONT_EDITS) assert.equal(source.split(edit.find).length, 2, edit.why);
    assert.doesNotThrow(() => patchedWorkerSource(source, FONT_EDITS));
  });

  test("the reversed font of the test stores its glyphs out of order, and keeps them", () => {
    const ttf = new Uint8Array(readFileSync(LIBERATION));
    const reversed = reversedGlyphs(ttf);
    const a = fontkit.create(Buffer.from(ttf));
    const b = fontkit.create(Buffer.from(reversed));
    for (const char of "Qu&7") {
      const glyph = a.glyphForCodePoint(char.codePointAt(0) ?? 0);
      assert.equal(b.getGlyph(glyph.id).path.toSVG(), glyph.path.toSVG());
    }
  });

  test("TrueType fonts read and render as with pdf.js as published: glyphs in order and out of order, CID fonts through Identity-H, simple fonts", {
    timeout: TIMEOUT * 2,
  }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), "font-edits-"));
    try {
      const ttf = new Uint8Array(readFileSync(LIBERATION));
      const made = [
        ["in-order.pdf", await trueTypePdf(ttf)],
        ["out-of-order.pdf", await trueTypePdf(reversedGlyphs(ttf))],
      ] as const;
      const pdfs = made.map(([name, bytes]) => {
        writeFileSync(path.join(dir, name), bytes);
        return path.join(dir, name);
      });
      if (!NO_CORPUS) {
        // Word's TrueType subsets (Identity-H CID fonts with tens of thousands of glyph slots) and simple fonts.
        for (const name of ["normal_4pages.pdf", "right_to_left_01.pdf", "multi_page.pdf"])
          pdfs.push(corpusPath(`docling/tests/data/pdf/sources/${name}`));
      }
      const patched = readAndRender(pdfs, {});
      const published = readAndRender(pdfs, { SVC_PDFJS_UNPATCHED: "1" });
      assert.equal(patched.length, published.length);
      for (let i = 0; i < patched.length; i++) assert.equal(patched[i], published[i], `output ${i}`);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
