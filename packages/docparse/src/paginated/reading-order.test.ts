import assert from "node:assert/strict";
import { test } from "node:test";
import { drawLine, drawParagraph, newPdf } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { Box } from "../model.ts";
import { type ReadingOrderOptions, readingOrder, readingOrderGroups } from "./reading-order.ts";

interface Element {
  id: string;
  box: Box;
  float?: boolean;
  aside?: boolean;
}

/** The options layoutPage passes for 10 pt text. */
const OPTIONS: ReadingOrderOptions = { minGutter: 9, minGap: 0.5, minColumnWidth: 40, rtl: false };

/** `count` lines of 10 pt text from x1 to x2, starting at y, on a 14 pt pitch, named `${name}1`, `${name}2`… */
function column(name: string, x1: number, x2: number, y: number, count: number): Element[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${name}${i + 1}`,
    box: { x1, y1: y + i * 14, x2, y2: y + i * 14 + 10 },
  }));
}

const ids = (elements: readonly Element[]) => elements.map((e) => e.id);

/** A letter-size page's two columns: 50..290 and 320..560, a 30 pt gutter. */
const LEFT = { x1: 50, x2: 290 };
const RIGHT = { x1: 320, x2: 560 };

test("two columns read the left column first, each top to bottom", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 5);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 5);
  // Interleaved as a text layer gives them, line by line across the page.
  const shuffled = left.flatMap((line, i) => [right[i], line]);
  assert.deepEqual(ids(readingOrder(shuffled, OPTIONS)), [...ids(left), ...ids(right)]);
});

test("a column whose lines are shorter than the other's still reads as its own column", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 8);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 3);
  assert.deepEqual(ids(readingOrder([...right, ...left], OPTIONS)), [...ids(left), ...ids(right)]);
});

test("a full-width title above two columns comes first", () => {
  const title: Element = { id: "title", box: { x1: 150, y1: 50, x2: 460, y2: 70 } };
  const left = column("L", LEFT.x1, LEFT.x2, 100, 5);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 5);
  assert.deepEqual(ids(readingOrder([...right, ...left, title], OPTIONS)), [
    "title",
    ...ids(left),
    ...ids(right),
  ]);
});

test("a figure overlapping the gutter does not block the column split", () => {
  const above = column("La", LEFT.x1, LEFT.x2, 100, 3);
  // The figure overhangs the gutter and reaches into the right column's margin; its middle is in the left column.
  const figure: Element = { id: "figure", box: { x1: 50, y1: 150, x2: 330, y2: 260 }, float: true };
  const below = column("Lb", LEFT.x1, LEFT.x2, 270, 3);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 14);
  const order = ids(readingOrder([...right, figure, ...below, ...above], OPTIONS));
  assert.deepEqual(order, [...ids(above), "figure", ...ids(below), ...ids(right)]);
});

test("the same figure, were it text, would join the columns", () => {
  // What the float flag buys: a text box across the gutter leaves no vertical whitespace to cut at.
  const above = column("La", LEFT.x1, LEFT.x2, 100, 3);
  const wide: Element = { id: "wide", box: { x1: 50, y1: 150, x2: 330, y2: 260 } };
  const below = column("Lb", LEFT.x1, LEFT.x2, 270, 3);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 14);
  const order = ids(readingOrder([...right, wide, ...below, ...above], OPTIONS));
  assert.notDeepEqual(order, [...ids(above), "wide", ...ids(below), ...ids(right)]);
});

test("a figure in the right column goes with the right column", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 10);
  const figure: Element = { id: "figure", box: { x1: 310, y1: 100, x2: 560, y2: 200 }, float: true };
  const right = column("R", RIGHT.x1, RIGHT.x2, 210, 4);
  assert.deepEqual(ids(readingOrder([figure, ...right, ...left], OPTIONS)), [
    ...ids(left),
    "figure",
    ...ids(right),
  ]);
});

test("a strip of bullets stays with the text it marks", () => {
  // Bullets at 50..55, the items' text from 65 (a 10 pt gap, wider than minGutter), a second column at 320.
  const items = column("item", 65, LEFT.x2, 100, 4);
  const bullets = items.map((item, i) => ({
    id: `bullet${i + 1}`,
    box: { x1: 50, y1: item.box.y1, x2: 55, y2: item.box.y2 },
  }));
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 4);
  const order = ids(readingOrder([...right, ...items, ...bullets], OPTIONS));
  assert.deepEqual(order, [
    "bullet1",
    "item1",
    "bullet2",
    "item2",
    "bullet3",
    "item3",
    "bullet4",
    "item4",
    ...ids(right),
  ]);
});

test("line numbers in the margin of a single column stay with their lines", () => {
  const lines = column("line", 60, 500, 100, 6);
  const numbers = lines.map((line, i) => ({
    id: `n${i + 1}`,
    box: { x1: 30, y1: line.box.y1, x2: 40, y2: line.box.y2 },
  }));
  const order = ids(readingOrder([...lines, ...numbers], OPTIONS));
  assert.deepEqual(
    order,
    lines.flatMap((line, i) => [`n${i + 1}`, line.id]),
  );
});

test("a right-to-left page reads the right column first", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 4);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 4);
  assert.deepEqual(ids(readingOrder([...left, ...right], { ...OPTIONS, rtl: true })), [
    ...ids(right),
    ...ids(left),
  ]);
});

test("words on one line of a right-to-left page read from the right", () => {
  const words: Element[] = [
    { id: "third", box: { x1: 100, y1: 100, x2: 140, y2: 110 } },
    { id: "second", box: { x1: 145, y1: 100, x2: 185, y2: 110 } },
    { id: "first", box: { x1: 190, y1: 100, x2: 230, y2: 110 } },
  ];
  assert.deepEqual(ids(readingOrder(words, { ...OPTIONS, rtl: true })), ["first", "second", "third"]);
});

test("a footer spanning both columns comes last", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 20);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 20);
  const footer: Element = { id: "footer", box: { x1: 50, y1: 750, x2: 560, y2: 758 } };
  assert.deepEqual(ids(readingOrder([footer, ...right, ...left], OPTIONS)), [
    ...ids(left),
    ...ids(right),
    "footer",
  ]);
});

test("a page number centred under the gutter comes last", {}, () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 20);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 20);
  const number: Element = { id: "7", box: { x1: 300, y1: 750, x2: 310, y2: 758 } };
  assert.deepEqual(ids(readingOrder([number, ...right, ...left], OPTIONS)), [
    ...ids(left),
    ...ids(right),
    "7",
  ]);
});

test("a figure spanning both columns below them comes after both columns", {}, () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 20);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 20);
  const figure: Element = { id: "figure", box: { x1: 50, y1: 400, x2: 560, y2: 700 }, float: true };
  assert.deepEqual(ids(readingOrder([figure, ...right, ...left], OPTIONS)), [
    ...ids(left),
    ...ids(right),
    "figure",
  ]);
});

test("groups are the regions that did not split, in reading order", () => {
  const title: Element = { id: "title", box: { x1: 150, y1: 50, x2: 460, y2: 70 } };
  const left = column("L", LEFT.x1, LEFT.x2, 100, 2);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 2);
  const groups = readingOrderGroups([...right, ...left, title], OPTIONS);
  assert.deepEqual(groups.map(ids), [["title"], ["L1"], ["L2"], ["R1"], ["R2"]]);
});

test("no elements make no groups, one element one group", () => {
  assert.deepEqual(readingOrderGroups([], OPTIONS), []);
  const one: Element = { id: "only", box: { x1: 0, y1: 0, x2: 10, y2: 10 } };
  assert.deepEqual(readingOrderGroups([one], OPTIONS), [[one]]);
});

/** `count` lines 9 pt high on the given pitch: columns set on different leadings share few gaps across the page. */
function pitched(name: string, x1: number, x2: number, y: number, count: number, pitch: number): Element[] {
  return Array.from({ length: count }, (_, i) => ({
    id: `${name}${i + 1}`,
    box: { x1, y1: y + i * pitch, x2, y2: y + i * pitch + 9 },
  }));
}

test("a stamp line across every gutter at the page's foot does not turn three columns into lines", () => {
  const a = pitched("A", 45, 212, 100, 40, 13);
  const b = pitched("B", 222, 388, 100, 42, 12.5);
  const c = pitched("C", 399, 566, 100, 41, 12.7);
  // A production stamp just below the columns, its pieces running over both gutters.
  const stamp: Element[] = [
    { id: "S1", box: { x1: 45, y1: 623, x2: 232, y2: 629 } },
    { id: "S2", box: { x1: 348, y1: 623, x2: 420, y2: 629 } },
  ];
  const order = ids(readingOrder([...stamp, ...c, ...a, ...b], OPTIONS));
  assert.deepEqual(order, [...ids(a), ...ids(b), ...ids(c), "S1", "S2"]);
});

test("text set sideways in the margin blocks no gutter and no cut across", () => {
  const left = column("L", LEFT.x1, LEFT.x2, 100, 30);
  const right = column("R", RIGHT.x1, RIGHT.x2, 100, 30);
  // A download stamp running up the left margin down to the page's foot line, which crosses the gutter.
  const stamp: Element = { id: "stamp", box: { x1: 18, y1: 300, x2: 24, y2: 560 }, aside: true };
  const foot: Element = { id: "foot", box: { x1: 200, y1: 540, x2: 400, y2: 548 } };
  const order = ids(readingOrder([stamp, foot, ...right, ...left], OPTIONS));
  assert.deepEqual(
    order.filter((id) => id !== "stamp"),
    [...ids(left), ...ids(right), "foot"],
  );
  assert.ok(order.includes("stamp"));
});

test("a title beside a column is no column of its own: one line of several runs is not a column", () => {
  // A right-to-left page: a title of three word runs on the left, set above a column of text on the right.
  const title: Element[] = [50, 115, 180].map((x, i) => ({
    id: `T${i + 1}`,
    box: { x1: x, y1: 50, x2: x + 60, y2: 66 },
  }));
  const right = column("R", 380, 560, 80, 6);
  assert.deepEqual(ids(readingOrder([...right, ...title], { ...OPTIONS, rtl: true })), [
    "T3",
    "T2",
    "T1",
    ...ids(right),
  ]);
});

test("a two-line title beside a boxed notice over three columns reads whole: the cut goes under it, not inside", () => {
  const title1 = { id: "T1", box: { x1: 50, y1: 80, x2: 250, y2: 100 } };
  const title2 = { id: "T2", box: { x1: 50, y1: 102, x2: 250, y2: 126 } };
  const subtitle = { id: "S", box: { x1: 50, y1: 132, x2: 300, y2: 144 } };
  // The notice at the top right ends above the title's second line.
  const notice = column("N", 330, 580, 2, 5);
  const body = [
    ...column("A", 50, 200, 160, 10),
    ...column("B", 220, 370, 160, 10),
    ...column("C", 390, 540, 160, 10),
  ];
  const order = ids(readingOrder([...body, ...notice, subtitle, title2, title1], OPTIONS));
  assert.deepEqual(order.slice(0, 3), ["T1", "T2", "S"]);
  assert.deepEqual(order.slice(3, 8), ids(notice));
  assert.deepEqual(order.slice(8), ids(body));
});

test("blocks that take turns on the left and the right, sharing no height, are read top to bottom", () => {
  // A letter's head: the sender's block at the top right, the address window lower on the left, the date on the
  // right under it, the subject on the left again; then the body across the page. No column runs beside another.
  const sender = column("S", 380, 560, 30, 4);
  const window = column("W", 60, 280, 150, 3);
  const date = column("D", 460, 560, 290, 1);
  const subject = column("T", 60, 240, 320, 1);
  const body = column("B", 60, 560, 360, 4);
  const shuffled = [...window, ...subject, ...body, ...sender, ...date];
  const order = ids(readingOrder(shuffled, OPTIONS));
  const at = (id: string) => order.indexOf(id);
  // The date under both blocks above it, the subject under the date, the body last; each block whole.
  assert.ok(at("S4") < at("D1") && at("W3") < at("D1") && at("D1") < at("T1"), order.join(" "));
  assert.deepEqual(order.slice(-4), ids(body));
  assert.equal(at("W3") - at("W1"), 2);
  assert.equal(at("S4") - at("S1"), 3);
});

test("a made letter: sender block top right, address window, date on the right, subject on the left", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([595, 842]);
  const sender = ["Erika Sender", "Absenderweg 12", "12345 Senderstadt", "Telefon: +49 111 12345"];
  for (const [i, line] of sender.entries()) drawLine(page, line, 400, 40 + i * 13, fonts.regular, 10);
  drawLine(page, "Erika Sender, Absenderweg 12, 12345 Senderstadt", 60, 140, fonts.regular, 7);
  for (const [i, line] of ["Max Empfänger", "Empfängerstraße 3", "54321 Empfängerstadt"].entries())
    drawLine(page, line, 60, 180 + i * 13, fonts.regular, 10);
  drawLine(page, "22. August 2022", 460, 285, fonts.regular, 10);
  drawLine(page, "Ein Betreff für diesen Brief", 60, 315, fonts.bold, 10);
  drawParagraph(page, `Sehr geehrte Damen und Herren, ${"dies ist der Text des Briefes. ".repeat(8)}`, {
    x: 60,
    top: 350,
    width: 475,
    font: fonts.regular,
    size: 10,
  });
  const { result } = await parseDocument({
    bytes: await pdf.save(),
    mimeType: "application/pdf",
    options: {},
  });
  const md = result.markdown;
  const at = (text: string) => md.indexOf(text);
  assert.ok(at("Max Empfänger") >= 0 && at("Max Empfänger") < at("August 2022"), md);
  assert.ok(at("Telefon") >= 0 && at("Telefon") < at("August 2022"), md);
  assert.ok(at("August 2022") < at("Ein Betreff"), md);
});

test("public page: a scrlttr2 letter's date is read before its subject", { timeout: 600_000 }, async () => {
  await assertPdfFacts("scrlttr2-sample-letter.pdf", [
    { before: ["22. August 2022", "Hier steht irgendein Betreff"] },
    { before: ["Empf.-Vorname Empf.-Nachname", "22. August 2022"] },
  ]);
});
