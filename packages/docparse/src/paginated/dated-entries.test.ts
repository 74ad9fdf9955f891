import assert from "node:assert/strict";
import path from "node:path";
import { test } from "node:test";
import { drawLine, newPdf, pdfBytes } from "../backends/pdf-fixtures.ts";
import { engineMarkdown, REAL_WORLD_DIR } from "../eval/pdf-sets.ts";
import { parseDocument } from "../index.ts";
import { opensWithDate } from "./dated-entries.ts";

// Lines that each open with a date or a time, one under another, are entries of their own however close they are
// set (dated-entries.ts).

test("dates and times in figures open a dated entry; section numbers and plain numbers do not", () => {
  for (const text of [
    "04/08 Other Sciences",
    "4/8/2015 Meeting",
    "14.03. Exam",
    "14.03.2021 Exam",
    "2015-04-08 Call",
  ])
    assert.ok(opensWithDate(text), text);
  for (const text of ["09:30 Welcome", "14. Jan. 2019 Talk"]) assert.ok(opensWithDate(text), text);
  for (const text of ["1.2 Results", "2015 was a year", "3 apples", "04/08/Other"])
    assert.ok(!opensWithDate(text), text);
});

test("a programme's dated sessions, two under each part, are an entry each", async () => {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  const parts = [
    ["I. Harbours and Their Tides", "04/08 The Tides of the Island", "04/15 The Harbour at Low Water"],
    ["II. Ferries", "04/22 The First Boats", "04/29 The Timetable"],
    ["III. Passengers", "05/13 Who Crosses and Why", "05/20 The Last Boat"],
  ];
  let top = 100;
  for (const [heading, ...sessions] of parts) {
    top += 4;
    drawLine(page, heading, 72, top, fonts.bold, 10);
    top += 18.6;
    for (const session of sessions) {
      drawLine(page, session, 100, top, fonts.regular, 10);
      top += 14.7;
    }
  }
  const { result } = await parseDocument({ bytes: await pdfBytes(pdf), mimeType: "application/pdf" });
  for (const session of parts.flatMap(([, ...sessions]) => sessions))
    assert.match(result.markdown, new RegExp(`(^|\\n\\n)${session}(\\n\\n|$)`), result.markdown);
});

test("a lecture programme's dated sessions are read one an entry", async () => {
  const markdown = await engineMarkdown(path.join(REAL_WORLD_DIR, "lectureplanner-program.pdf"), []);
  for (const session of [
    "04/15 My Very Own Science: The Better Way",
    "04/29 First Results",
    "07/15 Conclusions",
  ])
    assert.match(markdown, new RegExp(`\\n\\n${session}\\n\\n`), markdown);
});
