import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import fontkit from "@pdf-lib/fontkit";
import { drawLine, newPdf, PAGE_HEIGHT, PAGE_WIDTH, pdfBytes } from "../backends/pdf-fixtures.ts";
import { assertPdfFacts, markdownRows } from "../eval/facts.ts";
import { parseDocument } from "../index.ts";
import type { TextRun } from "../paginated/geometry.ts";
import { hRule as h, vRule as v } from "../paginated/test-geometry.ts";
import { realWorldRuledTables } from "./real-world.testing.ts";
import { detectRuledTables } from "./ruled.ts";
import { fullGrid, grid, ruledPage, run } from "./test-geometry.ts";

test("a right-to-left table's label alone on a line is a row of its own, not the row above continued", () => {
  const rules = [h(100, 100, 400, 1), h(118, 100, 400, 0.5), h(200, 100, 400, 1)];
  const rtl = { dir: "rtl" as const };
  const runs = [
    run("2014", 104, 104),
    run("2013", 164, 104),
    run("שנה", 330, 104, rtl),
    run("2.6", 104, 122),
    run("3.2", 164, 122),
    run("סך הכל", 330, 122, rtl),
    run("צריכה", 330, 136, rtl),
    run("3.8", 104, 150),
    run("3.5", 164, 150),
    run("אזרחית", 330, 150, rtl),
    run("1.1", 104, 164),
    run("1.2", 164, 164),
    run("ביטחונית", 330, 164, rtl),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.deepEqual(grid(table), [
    ["2014", "2013", "שנה"],
    ["2.6", "3.2", "סך הכל"],
    ["", "", "צריכה"],
    ["3.8", "3.5", "אזרחית"],
    ["1.1", "1.2", "ביטחונית"],
  ]);
});

test("a header band of labels wrapped on several lines is one header row", () => {
  // Ruled rows under a header band whose labels wrap on up to three lines; the label column's name is one line.
  const xs = [100, 200, 300, 400];
  const ys = [100, 140, 160, 180, 200];
  const runs = [
    run("State", 104, 102),
    run("Halt", 204, 102),
    run("stations", 204, 114),
    run("Persons", 304, 102),
    run("directly", 304, 114),
    run("reached", 304, 126),
    ...[
      ["Delhi", "8", "1.29"],
      ["Gujarat", "6", "6.03"],
      ["Kerala", "9", "1.42"],
    ].flatMap((row, r) => row.map((t, c) => run(t, xs[c] + 4, ys[r + 1] + 4))),
  ];
  const [table] = detectRuledTables(ruledPage(runs, fullGrid(xs, ys)));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["State", "Halt stations", "Persons directly reached"],
    ["Delhi", "8", "1.29"],
    ["Gujarat", "6", "6.03"],
    ["Kerala", "9", "1.42"],
  ]);
});

test("a table ruled around groups only: a heading line, then one row per line, a boxed chart beside left whole", () => {
  // Columns 100|200|260|320|380 ruled at the frame and at 380, where a chart box (380-480) stands beside the
  // table; rules close the header and each group (116, 170) over the table's columns only, the frame (100, 210)
  // over both. Each group: its name on the first line, then rows of a label and three figures.
  const groups = [
    {
      y: 116,
      name: "Ethanol",
      rows: [
        ["Iowa", "1.35", "1.38", "1.27"],
        ["Minnesota", "1.38", "1.40", "1.28"],
        ["Nebraska", "1.38", "1.36", "1.27"],
      ],
    },
    {
      y: 170,
      name: "Biomass",
      rows: [
        ["Straw", "55.71", "54.29", "58.33"],
        ["Grass", "61.46", "59.17", "63.75"],
      ],
    },
  ];
  const runs: TextRun[] = [
    run("State", 104, 103),
    run("Now", 204, 103),
    run("Week", 264, 103),
    run("Year", 324, 103),
  ];
  for (const g of groups) {
    runs.push(run(g.name, 102, g.y + 2));
    g.rows.forEach((row, k) => {
      row.forEach((text, c) => {
        runs.push(run(text, [108, 204, 264, 324][c], g.y + 14 + 12 * k));
      });
    });
  }
  // The chart's title and axis labels, on lines of their own between the table's.
  runs.push(run("Price", 400, 103));
  for (let k = 0; k < 6; k++) runs.push(run(`${(2.6 - 0.2 * k).toFixed(2)}`, 385, 121 + 11 * k));
  const rules = [
    h(100, 100, 480),
    h(116, 100, 380),
    h(170, 100, 380),
    h(210, 100, 480),
    v(100, 100, 210),
    v(380, 100, 210),
    v(480, 100, 210),
  ];
  const tables = detectRuledTables(ruledPage(runs, rules));
  assert.equal(tables.length, 1);
  const rows = grid(tables[0]).map((row) => row.slice(0, 4).join(" | "));
  for (const g of groups) {
    assert.ok(rows.includes(`${g.name} |  |  | `), `heading row ${g.name}: ${rows.join("\n")}`);
    for (const row of g.rows) assert.ok(rows.includes(row.join(" | ")), `row ${row[0]}: ${rows.join("\n")}`);
  }
  // The chart stays one cell: its labels are not spread over the table's rows.
  const chart = tables[0].cells.filter((c) => /2\.60/.test(c.text));
  assert.equal(chart.length, 1);
  assert.match(chart[0].text, /2\.60.*1\.60/s);
});

test("the USDA fact sheet's table: each line of a group a row, the charts beside it left whole", async () => {
  const tables = await realWorldRuledTables("usda-ag-energy-round-up.pdf");
  const rows = tables.flatMap((t) => grid(t));
  const has = (cells: string[]) =>
    rows.some((row) => row.slice(0, cells.length).join(" | ") === cells.join(" | "));
  assert.ok(
    has(["Minnesota", "1.38 - 1.48", "1.40 - 1.49", "1.28 - 1.35"]),
    rows.map((r) => r.join(" | ")).join("\n"),
  );
  assert.ok(has(["Cornstalks", "41.25", "39.38", "52.00"]));
  assert.ok(has(["NYMEX Crude Oil ($/barrel)", "54.45", "53.36", "30.77"]));
  const axis = tables.flatMap((t) => t.cells).filter((c) => /\b2\.60\b/.test(c.text));
  assert.equal(axis.length, 1, "the Iowa Ethanol chart is one cell");
  assert.match(axis[0].text, /Iowa Ethanol.*0\.80/s);
});

test("two ruled cells of paragraphs side by side under a header row are not cut into rows across the paragraphs", () => {
  // Header 100..120, body 120..300; columns 100|300|500; both columns on one 12 pt line grid, a blank line
  // between paragraphs. Left: three paragraphs of three lines (grid lines 0-2, 4-6, 8-10); right: two of four
  // lines and one of two (0-3, 5-8, 10-11), their breaks falling inside the left's paragraphs.
  const para = (x: number, y: number, lines: string[]) => lines.map((text, k) => run(text, x, y + 12 * k));
  const left = [
    ...para(104, 124, [
      "Do read the whole of the request",
      "before you write a word about it",
      "and keep its terms in mind.",
    ]),
    ...para(104, 172, [
      "Do note every point where it is",
      "unclear and ask the officer in",
      "charge of the contract.",
    ]),
    ...para(104, 220, [
      "Do write in plain words that the",
      "reader follows without a guide",
      "to the jargon.",
    ]),
  ];
  const right = [
    ...para(304, 124, [
      "Don't guess at what is meant when",
      "the text is silent, and don't rely",
      "on what you heard elsewhere about",
      "the bidder.",
    ]),
    ...para(304, 184, [
      "Don't compare one quote with the",
      "other ones: each is measured by",
      "the factors of the request alone",
      "and nothing else.",
    ]),
    ...para(304, 244, ["Don't let the price sway the", "technical reading."]),
  ];
  const runs = [
    run("Do's", 104, 104, { bold: true }),
    run("Don'ts", 304, 104, { bold: true }),
    ...left,
    ...right,
  ];
  const rules = fullGrid([100, 300, 500], [100, 120, 300]);
  const tables = detectRuledTables(ruledPage(runs, rules));
  for (const table of tables) {
    for (const cell of table.cells) {
      // No cell ends inside a sentence that the next row goes on with.
      assert.ok(!/\b(?:is|it|when|rely|the|about|with|by|alone|in|that|a)$/.test(cell.text), cell.text);
    }
  }
});

test("sub-headers set tightly under their group, each centered on its column, stay one cell per column", () => {
  // A boxed table: a group header over a partial rule, then three sub-headers four points apart (under a column
  // gap), each centered over its column of figures.
  const xs = [100, 200, 234, 268, 302];
  const rules = [
    h(100, 100, 302),
    h(114, 200, 302),
    h(130, 100, 302),
    h(226, 100, 302),
    h(250, 100, 302),
    v(100, 100, 250),
    v(302, 100, 250),
  ];
  const body = Array.from({ length: 8 }, (_, k) => [`row ${k + 1}`, `1${k}.2`, `2${k}.4`, `3${k}.6`]);
  // The last row, a total, ruled off below the others.
  const runs = [
    run("Traditional method", 206, 102),
    run("Method", 104, 116),
    ...["Rhythm", "drawal", "method"].map((t, c) => run(t, xs[c + 1] + 2, 117)),
    ...body.flatMap((row, r) =>
      row.map((t, c) => run(t, c === 0 ? 104 : xs[c] + 7, r < 7 ? 134 + 12 * r : 230)),
    ),
  ];
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.ok(table);
  const rows = grid(table);
  const sub = rows.find((row) => row.includes("Rhythm"));
  assert.deepEqual(
    sub?.slice(1),
    ["Rhythm", "drawal", "method"],
    rows.map((row) => row.join(" | ")).join("\n"),
  );
  assert.equal(table.cells.find((c) => c.text === "Traditional method")?.colSpan, 3);
  assert.deepEqual(rows.at(-1), ["row 8", "17.2", "27.4", "37.6"]);
});

test("a statement's group label over its first item, both in one band between rules, is a row of its own", () => {
  // Rules under each row; the group label and its first item share a band (no rule between them), the item
  // indented under the label.
  const lines: [string, number, string, string][] = [
    ["", 0, "2020", "2021"],
    ["Net profit", 0, "233,512", "201,683"],
    ["Items that may be reclassified to net profit", 0, "", ""],
    ["Exchange differences on translating foreign operations", 12, "(49,360)", "61,880"],
    ["Net changes in the fair value of cash flow hedges", 12, "20", "92"],
    ["Total items that may be reclassified to net profit", 12, "(51,774)", "63,154"],
  ];
  const runs: TextRun[] = [];
  lines.forEach(([label, indent, a, b], k) => {
    const y = 104 + 16 * k;
    if (label) runs.push(run(label, 104 + indent, y));
    if (a) runs.push(run(a, 520 - a.length * 5, y));
    if (b) runs.push(run(b, 600 - b.length * 5, y));
  });
  // No rule between the group label (line 2) and its first item (line 3).
  const rules = [100, 116, 132, 164, 180, 196].map((y, k) => h(y, 100, 610, k === 1 ? 1 : 0.5));
  const [table] = detectRuledTables(ruledPage(runs, rules));
  assert.ok(table);
  assert.deepEqual(grid(table), [
    ["", "2020", "2021"],
    ["Net profit", "233,512", "201,683"],
    ["Items that may be reclassified to net profit", "", ""],
    ["Exchange differences on translating foreign operations", "(49,360)", "61,880"],
    ["Net changes in the fair value of cash flow hedges", "20", "92"],
    ["Total items that may be reclassified to net profit", "(51,774)", "63,154"],
  ]);
});

test("public page: an annual report's group label stands apart from its first item", async () => {
  await assertPdfFacts("mitsubishi-income-equity-statements.pdf", [
    { neighbours: ["Exchange differences on translating foreign operations", "(49,360)"] },
  ]);
});

/**
 * A comparison table of current and amended text (a Korean bill's 신ㆍ구조문대비표): a frame, a header rule and a
 * rule between the two columns, no rule between rows. Each cell holds a paragraph justified over several lines,
 * the two columns wrapping in parallel; a row ends where an item starts (`②`, `<신 설>`, `1.`). Korean has no
 * lower case to tell a wrapped line, so a line that fills its column and a next line opening with a letter go on.
 */
test("a two-column comparison table in Korean, drawn with pdf-lib: each cell's wrapped lines are one row", async () => {
  const { pdf } = await newPdf();
  // Noto Sans CJK (fonts-noto-cjk, in install.sh's test packages): its Korean face out of the collection.
  pdf.registerFontkit({
    create: (bytes: Uint8Array) => fontkit.create(bytes, "NotoSansCJKkr-Regular"),
  } as never);
  const font = await pdf.embedFont(readFileSync("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"), {
    subset: true,
  });
  const page = pdf.addPage([PAGE_WIDTH, PAGE_HEIGHT]);
  const size = 10;
  const pitch = 18;
  const [left, middle, right] = [72, 300, 528];
  const top = 100;
  // A paragraph's lines justified to the column's width, its last line set flush left.
  const paragraph = (lines: readonly string[], x1: number, x2: number, first: number) => {
    lines.forEach((line, i) => {
      const words = line.split(" ");
      const width = words.reduce((w, word) => w + font.widthOfTextAtSize(word, size), 0);
      const last = i === lines.length - 1;
      const space =
        last || words.length < 2 ? font.widthOfTextAtSize(" ", size) : (x2 - x1 - width) / (words.length - 1);
      let x = x1;
      for (const word of words) {
        drawLine(page, word, x, first + i * pitch, font, size);
        x += font.widthOfTextAtSize(word, size) + space;
      }
    });
  };
  const rows: [string[], string[]][] = [
    [
      ["제1조(목적) 이 법은 기후위기 대응에", "필요한 기본 사항을 정한다."],
      ["제1조(목적) 이 법은 기후위기 대응에", "필요한 사항을 정함을 목적으로 한다."],
    ],
    [
      ["② 위원회는 위원장을 포함하여 오십명", "이내의 위원으로 구성하며 위원의", "임기는 이년으로 한다."],
      ["② 위원회는 위원장을 포함하여 백명", "이내의 위원으로 구성한다."],
    ],
    [["<신 설>"], ["1. 아동과 청년을 각각 대표할 수 있는", "전국적 규모의 단체"]],
  ];
  drawLine(page, "현 행", 170, top + 4, font, size);
  drawLine(page, "개 정 안", 395, top + 4, font, size);
  let y = top + 26;
  for (const [current, amended] of rows) {
    paragraph(current, left + 6, middle - 6, y);
    paragraph(amended, middle + 6, right - 6, y);
    y += Math.max(current.length, amended.length) * pitch;
  }
  const bottom = y + 6;
  const stroke = (x1: number, y1: number, x2: number, y2: number) =>
    page.drawLine({
      start: { x: x1, y: PAGE_HEIGHT - y1 },
      end: { x: x2, y: PAGE_HEIGHT - y2 },
      thickness: 0.4,
    });
  stroke(left, top, right, top);
  stroke(left, top + 20, right, top + 20);
  stroke(left, bottom, right, bottom);
  for (const x of [left, middle, right]) stroke(x, top, x, bottom);
  const { result } = await parseDocument({
    bytes: await pdfBytes(pdf),
    mimeType: "application/pdf",
    options: { parsing: {} },
  });
  const cells = markdownRows(result.markdown);
  const row = (start: string) => cells.find((r) => r[0].startsWith(start));
  assert.equal(cells.length, 4, result.markdown);
  assert.ok(row("제1조")?.[0].includes("필요한 기본 사항을 정한다"), result.markdown);
  assert.ok(row("2 위원회는")?.[0].includes("임기는 이년으로 한다"), result.markdown);
  assert.ok(row("2 위원회는")?.[1].includes("이내의 위원으로 구성한다"), result.markdown);
  assert.ok(row("신 설")?.[1].includes("전국적 규모의 단체"), result.markdown);
});

test("public page: a Korean bill's comparison table has a row per article and per new item, not per line", async () => {
  const [table] = await realWorldRuledTables("ko-bill-amendment-p3-p7.pdf", 2);
  const rows = grid(table);
  assert.equal(rows.length, 6);
  assert.ok(rows[2][0].startsWith("⑤") && rows[2][0].endsWith("있도록 하여야 한다."), rows[2][0]);
  assert.ok(rows[2][1].startsWith("⑤") && rows[2][1].includes("반영하여야"), rows[2][1]);
  assert.deepEqual(
    rows.slice(3).map((row) => [row[0], row[1].slice(0, 2)]),
    [
      ["<신 설>", "1."],
      ["<신 설>", "2."],
      ["<신 설>", "3."],
    ],
  );
});
