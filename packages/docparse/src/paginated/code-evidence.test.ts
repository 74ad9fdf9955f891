import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { newPdf } from "../backends/pdf-fixtures.ts";
import { parseDocument } from "../index.ts";
import { readsAsCode } from "./code-evidence.ts";

test("lines with brackets, operators, commands or short identifier lines read as code", () => {
  assert.ok(readsAsCode(["const x = 1;", "console.log(x);"]));
  assert.ok(readsAsCode(["\\begin{center}", "\\framebox[4cm][s]{text}", "\\end{center}"]));
  assert.ok(readsAsCode(["pxc 1 create", "port 1/x1/1/c1/1", "no shutdown", "exit"]));
  assert.ok(readsAsCode(["import numpy as np", "def f(x):", "    return x"]));
  assert.ok(readsAsCode(["SELECT * FROM t WHERE id = 1;"]));
  assert.ok(readsAsCode(["}"]));
  assert.ok(readsAsCode(["------------------------------"]));
});

test("TeX input anywhere in a block reads as code: a command, a group, a comment", () => {
  assert.ok(readsAsCode(["Look, my dear,", "lean on my \\textsl{heart}."]));
  assert.ok(readsAsCode(["Start a new", "line here.", "Here!\\newline Thanks!"]));
  assert.ok(readsAsCode(["Here is an", "exam%", "ple."]));
  // A path or a percentage in a typed letter is no TeX.
  assert.ok(!readsAsCode(["The files are in", "C:\\Users\\clerk, as", "agreed, at 50% of cost."]));
});

test("typed prose, names, addresses and numbers in a typewriter face do not read as code", () => {
  assert.ok(!readsAsCode(["IN THE SUPREME COURT OF THE UNITED STATES"]));
  assert.ok(
    !readsAsCode(["The above-entitled matter came on for oral", "argument before the court", "at 1:01 p.m."]),
  );
  assert.ok(!readsAsCode(["WARDEN,"]));
  assert.ok(!readsAsCode([":"]));
  assert.ok(!readsAsCode(["1", "2", "3"]));
  assert.ok(!readsAsCode(["firstname.lastname@domain.com"]));
  assert.ok(!readsAsCode(["www.example.in (J.K. Author); https://www.university.org"]));
  assert.ok(!readsAsCode(["at Elsevier (http://www.elsevier.com/locate/latex). The"]));
});

/**
 * A typed letter in Courier (a heading line in capitals, a salutation, a paragraph) above a short listing in the
 * same face: only the listing is fenced.
 */
async function typedLetterWithListing(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  let top = 80;
  const lines = [
    "NOTICE OF MEETING OF THE HARBOUR BOARD",
    "",
    "Dear Members,",
    "",
    "The board will meet on Tuesday, March 3, at the town hall to",
    "discuss the new timetable for the ferry crossings. Please bring",
    "the counts from each quay, as agreed at the last meeting.",
    "",
    "Yours sincerely,",
    "The Secretary",
    "",
    "",
    "for (q = 0; q < 9; q++) {",
    "  count(quay[q]);",
    "}",
  ];
  for (const line of lines) {
    if (line) page.drawText(line, { x: 72, y: 792 - top, size: 11, font: fonts.mono });
    top += 14;
  }
  return pdf.save();
}

test("a typed letter in Courier is text; the listing under it is code", async () => {
  const { result } = await parseDocument({
    bytes: await typedLetterWithListing(),
    mimeType: "application/pdf",
    options: {},
  });
  const fenced = [...result.markdown.matchAll(/```\n([\s\S]*?)\n```/g)].map((m) => m[1]).join("\n");
  assert.match(fenced, /for \(q = 0; q < 9; q\+\+\) \{\s+count\(quay\[q\]\);\s+\}/, result.markdown);
  assert.doesNotMatch(fenced, /HARBOUR|Dear|timetable|Secretary/, result.markdown);
  assert.match(result.markdown, /Dear Members,/);
});

/** A LaTeX manual's example: a sentence typed over two lines in Courier, one command among its words. */
async function texExample(): Promise<Uint8Array> {
  const { pdf, fonts } = await newPdf();
  const page = pdf.addPage([612, 792]);
  page.drawText("The input below shows a slanted word in a sentence of the manual.", {
    x: 72,
    y: 700,
    size: 11,
    font: fonts.regular,
  });
  page.drawText("Look, my dear,", { x: 72, y: 670, size: 9, font: fonts.mono });
  page.drawText("lean on my \\textsl{heart}.", { x: 72, y: 659, size: 9, font: fonts.mono });
  page.drawText("Its output is set in the manual's own face on the right.", {
    x: 72,
    y: 630,
    size: 11,
    font: fonts.regular,
  });
  return pdf.save();
}

test("a LaTeX example of a prose line and a line with a command is fenced as code", async () => {
  const { result } = await parseDocument({
    bytes: await texExample(),
    mimeType: "application/pdf",
    options: {},
  });
  assert.match(result.markdown, /```\nLook, my dear,\nlean on my \\textsl\{heart\}\.\n```/, result.markdown);
});

test("a LaTeX manual's input examples, a sentence with a command or a comment among its lines, are fenced", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/tr-lshort-p6.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  const fenced = [...result.markdown.matchAll(/```\n([\s\S]*?)\n```/g)].map((m) => m[1]);
  assert.ok(
    fenced.some((code) => code.startsWith("Yaslan güzelim,\nkalbime \\textsl{yaslan}.")),
    result.markdown,
  );
  assert.ok(
    fenced.some((code) => code.includes("Burada!\\newline Teşekkürler!")),
    result.markdown,
  );
  assert.ok(
    fenced.some((code) => code.includes("\\begin{comment}")),
    result.markdown,
  );
});

test("the Supreme Court transcript, set in Courier, has no code fence", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/scotus-transcript-p1.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  assert.doesNotMatch(result.markdown, /```/);
  assert.match(result.markdown, /IN THE SUPREME COURT OF THE UNITED STATES/);
});

test("a poster's mail address in a typewriter face is plain text: neither code nor a heading", async () => {
  const bytes = readFileSync(new URL("../../test/real-world/modernposter-demo.pdf", import.meta.url));
  const { result } = await parseDocument({ bytes, mimeType: "application/pdf", options: {} });
  assert.match(result.markdown, /^firstname\.lastname@domain\.com$/m);
});
