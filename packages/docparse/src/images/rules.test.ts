import assert from "node:assert/strict";
import { describe, test } from "node:test";
import type { PageFragment } from "@svc/contract";
import sharp from "sharp";
import { parseDocument } from "../index.ts";
import { tableImage } from "../ocr/test-support.ts";
import { rasterRules, scaleRules } from "./rules.ts";

const ROWS = [
  ["Item", "Quantity", "Price"],
  ["Apples", "12", "3.40"],
  ["Pears", "7", "2.10"],
  ["Cherries", "150", "9.95"],
  ["Plums", "31", "4.25"],
];

/** The cells of a table fragment as text, row by row, from its HTML. */
function cellsOf(fragment: PageFragment): string[][] {
  const html = (fragment.content as { html?: string }).html ?? "";
  return [...html.matchAll(/<tr>(.*?)<\/tr>/g)].map((row) =>
    [...row[1].matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((cell) => cell[1].trim()),
  );
}

async function tablesOf(png: Buffer): Promise<PageFragment[]> {
  const { result } = await parseDocument({ bytes: png, mimeType: "image/png", options: {} });
  return result.pages.flatMap((page) => page.page_fragments ?? []).filter((f) => f.fragment_type === "table");
}

describe("tables in images", () => {
  test("the ruling lines of a drawn grid are found where they are drawn, and text is not a rule", async () => {
    const png = await tableImage(ROWS, { ruled: true, dpi: 200 });
    const rules = await rasterRules(png, 72 / 200, 200);
    const h = rules.filter((r) => r.orientation === "h");
    const v = rules.filter((r) => r.orientation === "v");
    assert.equal(h.length, ROWS.length + 1, JSON.stringify(h));
    assert.equal(v.length, 4, JSON.stringify(v));
    // Columns 2 inches (144 pt) apart from 1 inch (72 pt) in; every horizontal rule spans them.
    assert.deepEqual(
      v.map((r) => Math.round(r.x1 / 4) * 4).sort((a, b) => a - b),
      [72, 216, 360, 504],
    );
    for (const rule of h)
      assert.ok(Math.abs(rule.x1 - 72) < 3 && Math.abs(rule.x2 - 504) < 3, JSON.stringify(rule));
    // The same cells without lines: no rules at all.
    assert.deepEqual(
      await rasterRules(await tableImage(ROWS, { ruled: false, dpi: 200 }), 72 / 200, 200),
      [],
    );
    // Rules found once in pixels and scaled are the rules found in points.
    assert.deepEqual(scaleRules(await rasterRules(png, 1, 200), 72 / 200), rules);
    const blank = await sharp({ create: { width: 400, height: 300, channels: 3, background: "#ffffff" } })
      .png()
      .toBuffer();
    assert.deepEqual(await rasterRules(blank, 1, 72), []);
  });

  test("a ruled table and an unruled one in images come out as tables with their cells", {
    timeout: 300_000,
  }, async () => {
    for (const ruled of [true, false]) {
      const tables = await tablesOf(await tableImage(ROWS, { ruled }));
      assert.equal(tables.length, 1, `ruled ${ruled}: ${tables.length} tables`);
      assert.deepEqual(cellsOf(tables[0]), ROWS, `ruled ${ruled}`);
    }
  });
});
