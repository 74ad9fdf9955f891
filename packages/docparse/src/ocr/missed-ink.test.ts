import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { createCanvas } from "@napi-rs/canvas";
import sharp from "sharp";
import { factHolds, markdownRows } from "../eval/facts.ts";
import { engineMarkdown, plainWords, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { missedInk, tilePatches } from "./missed-ink.ts";
import { digitsAmongNumbers } from "./recognize-page.ts";
import { scanPng } from "./test-support.ts";
import type { TsvWord } from "./tsv.ts";

const DPI = 200;

/**
 * A scanned table of lone digits under a shaded two-line header, as survey reports print them: the kind of page
 * whose first OCR pass drops the digits and the header, and leaves more than a few percent of the page inked.
 */
function surveyTable(): Promise<Buffer> {
  const columns = ["Region", "Visits", "Sites", "Closed", "Rate"];
  const rows = [
    ["North", "5", "1", "4", "34.5%"],
    ["South", "7", "2", "3", "98.3%"],
    ["East", "5", "4", "1", "71.0%"],
    ["West", "3", "3", "0", "95.4%"],
    ["Coast", "8", "6", "2", "88.8%"],
  ];
  const cell = { w: 300, h: 110 };
  const left = 150;
  const top = 150;
  const width = left * 2 + cell.w * columns.length;
  const height = top * 2 + cell.h * (rows.length + 1) + cell.h;
  const canvas = createCanvas(width, height);
  const c = canvas.getContext("2d");
  c.fillStyle = "#ffffff";
  c.fillRect(0, 0, width, height);
  c.fillStyle = "#8db3e2";
  c.fillRect(left, top, cell.w * columns.length, cell.h * 2);
  c.fillStyle = "#000000";
  c.font = 'bold 40px "DejaVu Sans"';
  columns.forEach((name, i) => {
    c.fillText(name, left + i * cell.w + 30, top + 70);
    c.fillText("count of", left + i * cell.w + 30, top + 130);
    c.fillText("the year", left + i * cell.w + 30, top + 190);
  });
  c.font = '40px "DejaVu Sans"';
  rows.forEach((row, r) => {
    row.forEach((text, i) => {
      const x = i === 0 ? left + 30 : left + i * cell.w + cell.w / 2 - 12 * text.length;
      c.fillText(text, x, top + cell.h * (r + 2) + 70);
    });
  });
  c.strokeStyle = "#000000";
  c.lineWidth = 3;
  for (let r = 0; r <= rows.length + 2; r++) {
    if (r === 1) continue;
    c.beginPath();
    c.moveTo(left, top + r * cell.h);
    c.lineTo(left + cell.w * columns.length, top + r * cell.h);
    c.stroke();
  }
  for (let i = 0; i <= columns.length; i++) {
    c.beginPath();
    c.moveTo(left + i * cell.w, top);
    c.lineTo(left + i * cell.w, top + cell.h * (rows.length + 2));
    c.stroke();
  }
  return scanPng(canvas, DPI);
}

/** Cells as the facts compare them (folded). */
const folded = (cells: readonly string[]) => cells.map((cell) => plainWords(cell).join(" "));

test("tilePatches: connected inked tiles (8 neighbours) with their boxes", () => {
  // 4 × 3 tiles: a diagonal pair, and a lone tile in the far corner.
  const inked = new Uint8Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 1]);
  const patches = tilePatches(inked, 4).map(({ x1, y1, x2, y2, tiles }) => ({
    x1,
    y1,
    x2,
    y2,
    n: tiles.length,
  }));
  assert.deepEqual(patches, [
    { x1: 0, y1: 0, x2: 2, y2: 2, n: 2 },
    { x1: 3, y1: 2, x2: 4, y2: 3, n: 1 },
  ]);
});

test("missed ink spread over many cells is read again; a photo-like patch is painted out, not read", async () => {
  const width = 1700;
  const height = 2200;
  const canvas = createCanvas(width, height);
  const c = canvas.getContext("2d");
  c.fillStyle = "#ffffff";
  c.fillRect(0, 0, width, height);
  c.fillStyle = "#000000";
  c.font = '40px "DejaVu Sans"';
  // Lone digits in a grid of 8 × 12 cells: about 5% of the page's tiles once nothing else is inked.
  for (let r = 0; r < 12; r++)
    for (let k = 0; k < 8; k++) c.fillText(String((r + k) % 10), 150 + k * 190, 200 + r * 110);
  // A dark photo-like block, 2 × 2 inches.
  c.fillStyle = "#303030";
  c.fillRect(500, 1700, 400, 400);
  const png = await scanPng(canvas, DPI);
  const missed = await missedInk(png, { words: [], lines: [] }, []);
  assert.ok(missed, "the digits are read again");
  const { data } = await sharp(missed).extractChannel(0).raw().toBuffer({ resolveWithObject: true });
  assert.equal(data[1900 * width + 700], 255, "the block is painted out");
  assert.ok(
    data.subarray(150 * width, 260 * width).some((v) => v < 128),
    "the digits stay",
  );

  // A page that is one large photo has nothing to read again.
  const photo = createCanvas(width, height);
  const p = photo.getContext("2d");
  p.fillStyle = "#ffffff";
  p.fillRect(0, 0, width, height);
  p.fillStyle = "#404040";
  p.fillRect(200, 200, 1300, 1500);
  assert.equal(await missedInk(await scanPng(photo, DPI), { words: [], lines: [] }, []), null);
});

test("a lone O or l among numbers of the second pass is a digit; in words it stays a letter", () => {
  const word = (text: string, line: number): TsvWord => ({
    block: 1,
    paragraph: 1,
    line,
    left: 0,
    top: 0,
    width: 10,
    height: 10,
    conf: 90,
    text,
  });
  const read = digitsAmongNumbers([
    word("3", 1),
    word("3", 1),
    word("O", 1),
    word("O", 2),
    word("Ohio", 2),
    word("l", 3),
  ]);
  assert.deepEqual(
    read.map((w) => w.text),
    ["3", "3", "0", "O", "Ohio", "l"],
  );
});

test("a scanned table's lone digits and its shaded header are read, each digit in its cell", async () => {
  const { result } = await parseDocument({ bytes: await surveyTable(), mimeType: "image/png" });
  const rows = markdownRows(result.markdown);
  const subject = { words: ` ${plainWords(result.markdown).join(" ")} `, rows };
  for (const fact of [
    { present: "Region" },
    { present: "Closed" },
    { neighbours: ["North", "5"] as [string, string] },
    { neighbours: ["South", "7"] as [string, string] },
    { neighbours: ["Coast", "8"] as [string, string] },
  ]) {
    assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${result.markdown}`);
  }
  const west = rows.find((row) => row[0] === folded(["West"])[0]);
  assert.deepEqual(west?.slice(0, 4), folded(["West", "3", "3", "0"]), result.markdown);
});

test("public scans: the spanning table's header and lone digits, the single table's numbers", async () => {
  const spanning = await engineMarkdown(path.join(REAL_WORLD_DIR, "scan-spanning-table.pdf"), []);
  const rows = markdownRows(spanning);
  const subject = { words: ` ${plainWords(spanning).join(" ")} `, rows };
  for (const fact of [
    { present: "Disability Category" },
    { present: "Ballots Completed" },
    { neighbours: ["Blind", "5"] as [string, string] },
    { neighbours: ["Mobility", "3"] as [string, string] },
  ]) {
    assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${spanning}`);
  }
  const mobility = rows.find((row) => row[0] === folded(["Mobility"])[0]);
  assert.deepEqual(mobility?.slice(0, 4), folded(["Mobility", "3", "3", "0"]), spanning);
  const single = await engineMarkdown(path.join(REAL_WORLD_DIR, "scan-single-table.pdf"), []);
  assert.match(single, /Base 128/);
  assert.match(single, /64,058/);
});

test("a crop a line high that its first pass left unread is read again, however much of it the word inks", async () => {
  // One underlined word filling a crop cut out around it, as a text-layer page's image text is cropped.
  const canvas = createCanvas(160, 60);
  const c = canvas.getContext("2d");
  c.fillStyle = "#ffffff";
  c.fillRect(0, 0, 160, 60);
  c.fillStyle = "#000000";
  c.font = 'italic bold 30px "DejaVu Sans"';
  c.fillText("Thursday", 6, 38);
  c.fillRect(6, 44, 148, 2);
  const png = await scanPng(canvas, DPI);
  const nothingRead = { words: [], lines: [] };
  // As a page, that much ink is no page of missed words; as a region cut out for its text, it is read again.
  assert.equal(await missedInk(png, nothingRead, []), null);
  assert.ok(await missedInk(png, nothingRead, [], true));
});

test("public: the questionnaire's weekday names, underlined in an image, are read", {
  timeout: 600_000,
}, async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "sleep-study-questionnaire.pdf"));
  for (const day of ["Monday", "Wednesday", "Thursday", "Sunday"])
    assert.match(markdown, new RegExp(`\\b${day}\\b`));
});
