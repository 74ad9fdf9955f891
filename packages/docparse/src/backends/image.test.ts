import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PageFragment, ParsingOptions } from "@svc/contract";
import sharp from "sharp";
import { DocumentLoadError, type ParseViews, parseDocument } from "../index.ts";
import { wordRecall } from "../ocr/test-support.ts";
import { qrCodePng, textImage } from "./pdf-fixtures.ts";

async function parseImage(
  bytes: Uint8Array,
  mimeType: string,
  parsing: Partial<ParsingOptions> = {},
  pageRange?: string,
): Promise<ParseViews> {
  const { result } = await parseDocument({ bytes, mimeType, options: { parsing, pageRange } });
  return result;
}

function fragments(result: ParseViews): PageFragment[] {
  return result.pages.flatMap((page) => page.page_fragments ?? []);
}

const LINES = [
  "Minutes of the harbour committee meeting",
  "The new pier opens to fishing boats in June",
  "Repairs to the lighthouse will cost less than planned",
];
const TEXT = LINES.join(" ");

/** Three lines of 14 pt text at 300 dpi on a strip 8.5 by 2.5 inches: 612 × 180 points. */
const strip = (lines: readonly string[] = LINES, options: Parameters<typeof textImage>[1] = {}) =>
  textImage(lines, { heightIn: 2.5, ...options });

function assertReads(result: ParseViews, reference: string, min = 0.9): void {
  const recall = wordRecall(reference, result.markdown);
  assert.ok(recall >= min, `recall ${recall.toFixed(2)}: ${result.markdown}`);
}

describe("image backend", () => {
  test("a PNG: the words are read, on one page sized from the file's resolution", async () => {
    const result = await parseImage(await strip(), "image/png");
    assert.equal(result.total_pages, 1);
    assert.equal(result.parsed_pages_count, 1);
    assertReads(result, TEXT);
    const [page] = result.pages;
    assert.deepEqual(page.page_dimensions, { width: 612, height: 180 });
    for (const fragment of fragments(result)) {
      const b = fragment.bbox;
      assert.ok(b && b.x1 >= 0 && b.y1 >= 0 && b.x2 <= 612 && b.y2 <= 180, JSON.stringify(b));
    }
    // Lines start an inch from the left edge.
    assert.ok(fragments(result).some((f) => f.bbox && Math.abs(f.bbox.x1 - 72) < 6));
  });

  test("a JPEG: the words are read", async () => {
    const result = await parseImage(await strip(LINES, { format: "jpeg" }), "image/jpeg");
    assert.equal(result.total_pages, 1);
    assertReads(result, TEXT);
  });

  test("a two-page TIFF: each page's words on its page; page_range reads only the page asked for", async () => {
    const first = ["The first page describes the northern harbour"];
    const second = ["The second page lists the moorings for yachts"];
    const tiff = await sharp([await strip(first), await strip(second)], { join: { animated: true } })
      .withDensity(300)
      .tiff()
      .toBuffer();
    assert.equal((await sharp(tiff).metadata()).pages, 2, "the fixture has two pages");

    const whole = await parseImage(tiff, "image/tiff");
    assert.equal(whole.total_pages, 2);
    assert.equal(whole.parsed_pages_count, 2);
    const pageText = (result: ParseViews, n: number) =>
      (result.pages.find((p) => p.page_number === n)?.page_fragments ?? [])
        .map((f) => f.content.content)
        .join(" ");
    assert.ok(wordRecall(first[0], pageText(whole, 1)) >= 0.85, pageText(whole, 1));
    assert.ok(wordRecall(second[0], pageText(whole, 2)) >= 0.85, pageText(whole, 2));
    assert.ok(!pageText(whole, 1).includes("moorings"));

    const secondOnly = await parseImage(tiff, "image/tiff", {}, "2");
    assert.equal(secondOnly.total_pages, 2);
    assert.equal(secondOnly.parsed_pages_count, 1);
    assert.deepEqual(
      secondOnly.pages.map((p) => p.page_number),
      [2],
    );
    assertReads(secondOnly, second[0], 0.85);
    assert.ok(!secondOnly.markdown.includes("northern"), secondOnly.markdown);

    await assert.rejects(parseImage(tiff, "image/tiff", {}, "3"), (error: unknown) => {
      assert.ok(error instanceof DocumentLoadError);
      assert.equal(error.code, "INVALID_PAGE_RANGE");
      return true;
    });
  });

  test("an image turned a quarter turn is still read, in order, on the upright page", async () => {
    const result = await parseImage(await strip(LINES, { turn: 90 }), "image/png");
    assertReads(result, TEXT, 0.85);
    const md = result.markdown;
    assert.ok(
      md.indexOf("harbour") < md.indexOf("pier") && md.indexOf("pier") < md.indexOf("lighthouse"),
      md,
    );
    assert.deepEqual(result.pages[0].page_dimensions, { width: 612, height: 180 });
  });

  test("barcode_detection: a QR code in the image is a barcode fragment with its text", async () => {
    const encoded = "WIFI:S:harbour-office;T:WPA;P:lighthouse42;;";
    const page = await sharp(await strip(LINES.slice(0, 1)))
      .composite([{ input: await qrCodePng(encoded, 10), left: 1500, top: 150 }])
      .withDensity(300)
      .png()
      .toBuffer();
    const found = await parseImage(page, "image/png", { barcode_detection: true });
    const codes = fragments(found).filter((f) => f.fragment_type === "barcode");
    assert.equal(codes.length, 1, JSON.stringify(found.pages));
    assert.equal(codes[0].content.content, encoded);
    // The code is drawn from 1500 px (360 pt) to the right, in the strip's 180 pt height.
    const b = codes[0].bbox;
    assert.ok(b && b.x1 >= 355 && b.y1 >= 30 && b.y2 <= 180, JSON.stringify(b));
    assertReads(found, LINES[0], 0.8);

    const none = await parseImage(page, "image/png");
    assert.ok(!fragments(none).some((f) => f.fragment_type === "barcode"));
  });

  test("a corrupt image is a DocumentLoadError with code INVALID_FILE", async () => {
    const png = await strip(["x"]);
    const signature = png.subarray(0, 8);
    const corrupt = Buffer.concat([signature, Buffer.alloc(200, 0x5a)]);
    const truncated = png.subarray(0, Math.floor(png.length / 2));
    for (const [name, bytes, type] of [
      ["PNG signature then garbage", corrupt, "image/png"],
      ["truncated PNG", truncated, "image/png"],
      ["PNG bytes labelled JPEG, cut short", truncated, "image/jpeg"],
      ["text labelled TIFF", Buffer.from("not an image at all"), "image/tiff"],
    ] as const) {
      await assert.rejects(
        parseImage(bytes, type),
        (error: unknown) => {
          assert.ok(error instanceof DocumentLoadError, `${name}: ${String(error)}`);
          assert.equal(error.code, "INVALID_FILE", name);
          return true;
        },
        name,
      );
    }
  });
});
