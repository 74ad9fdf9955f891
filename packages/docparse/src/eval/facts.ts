/**
 * `npm run eval:facts [-- --set second] [--file name] [--verbose]`: the facts of `test/real-world/facts.json`, or
 * of `facts-<set>.json` (a second … twenty-sixth set, written later on other public PDFs), (text present,
 * text absent, A before B, cell neighbours) checked on our markdown (page headers, footers and numbers
 * ignored) and on pdftotext's text, per document; then the order facts pdftotext gets right and we miss.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DOCLING_DATA } from "../test-corpus.ts";
import { decodeEntities } from "./html-entities.ts";
import { engineMarkdown, pdftotext, plainWords, REAL_WORLD_DIR } from "./pdf-sets.ts";

export type Fact =
  | { present: string }
  | { absent: string }
  | { before: [string, string] }
  | { neighbours: [string, string] };

interface FactDocument {
  pdf: string;
  kind: string;
  facts: Fact[];
}

/** A text as it is searched for: its words, space-separated and framed by spaces. */
function wordKey(text: string): string {
  return ` ${plainWords(text).join(" ")} `;
}

/** What a fact is checked against: the words of a text, and its table rows as lists of cells. */
export interface FactSubject {
  words: string;
  rows: string[][];
}

/**
 * The subject of a markdown text: its words and its table rows. An HTML table's words are its cells' texts in
 * order: its tags are markup (a `td` is no word of the page) and `&amp;` is `&`.
 */
export function markdownSubject(markdown: string): FactSubject {
  const text = decodeEntities(markdown.replace(/<\/?(?:table|thead|tbody|tr|td|th)\b[^>]*>/g, " "));
  return { words: wordKey(text), rows: markdownRows(markdown) };
}

/**
 * Asserts that facts hold for a PDF's markdown as `npm run eval:facts` checks them, page furniture ignored: the
 * layout tests on public pages. `file` is a path, or a name in the real-world folder.
 */
export async function assertPdfFacts(file: string, facts: readonly Fact[]): Promise<void> {
  const markdown = await engineMarkdown(path.resolve(REAL_WORLD_DIR, file), [
    "page_header",
    "page_footer",
    "page_number",
  ]);
  const subject = markdownSubject(markdown);
  for (const fact of facts)
    assert.ok(factHolds(fact, subject), `${JSON.stringify(fact)} in:\n${markdown.slice(0, 4000)}`);
}

/** Table rows of a markdown text: pipe rows and HTML `<tr>` rows, cells folded. */
export function markdownRows(markdown: string): string[][] {
  const rows: string[][] = [];
  for (const line of markdown.split("\n")) {
    if (/^\s*\|.*\|\s*$/.test(line)) rows.push(line.trim().slice(1, -1).split("|").map(foldCell));
  }
  for (const match of markdown.matchAll(/<tr[^>]*>([\s\S]*?)<\/tr>/g)) {
    const cells = [...match[1].matchAll(/<t[dh][^>]*>([\s\S]*?)<\/t[dh]>/g)].map((cell) =>
      foldCell(decodeEntities(cell[1].replace(/<[^>]+>/g, " "))),
    );
    rows.push(cells);
  }
  return rows;
}

/** Rows of pdftotext's layout text: cells are runs of text set apart by two spaces or more. */
export function layoutRows(text: string): string[][] {
  return text.split("\n").map((line) =>
    line
      .trim()
      .split(/\s{2,}/)
      .map(foldCell),
  );
}

function foldCell(cell: string): string {
  return plainWords(cell).join(" ");
}

/** Whether a fact holds for a subject. */
export function factHolds(fact: Fact, subject: FactSubject): boolean {
  if ("present" in fact) return subject.words.includes(wordKey(fact.present));
  if ("absent" in fact) return !subject.words.includes(wordKey(fact.absent));
  if ("before" in fact) {
    const a = subject.words.indexOf(wordKey(fact.before[0]));
    const b = subject.words.indexOf(wordKey(fact.before[1]));
    return a >= 0 && b >= 0 && a < b;
  }
  const [left, right] = fact.neighbours.map(foldCell);
  return subject.rows.some((row) => row.some((cell, i) => cell === left && row[i + 1] === right));
}

function describeFact(fact: Fact): string {
  if ("present" in fact) return `present "${fact.present}"`;
  if ("absent" in fact) return `absent "${fact.absent}"`;
  if ("before" in fact) return `"${fact.before[0]}" before "${fact.before[1]}"`;
  return `neighbours "${fact.neighbours[0]}" | "${fact.neighbours[1]}"`;
}

function resolvePdf(id: string): string | null {
  const [set, ...rest] = id.split("/");
  if (set === "real-world") return path.join(REAL_WORLD_DIR, ...rest);
  if (set === "docling" && DOCLING_DATA) return path.join(DOCLING_DATA, "pdf/sources", ...rest);
  return null;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: { set: { type: "string" }, file: { type: "string" }, verbose: { type: "boolean" } },
  });
  const factsFile = values.set ? `facts-${values.set}.json` : "facts.json";
  if (!/^facts(-[a-z0-9-]+)?\.json$/.test(factsFile)) throw new Error(`--set: not a set name: ${values.set}`);
  const documents = (
    JSON.parse(readFileSync(path.join(REAL_WORLD_DIR, factsFile), "utf8")) as { documents: FactDocument[] }
  ).documents.filter((doc) => !values.file || doc.pdf.includes(values.file));
  let ours = 0;
  let theirs = 0;
  let total = 0;
  const missedOrder: string[] = [];
  const ourFailures: string[] = [];
  console.log(`${"document".padEnd(46)} ${"kind".padEnd(44)} facts  ours  pdftotext`);
  for (const doc of documents) {
    const file = resolvePdf(doc.pdf);
    if (!file) {
      console.log(`${doc.pdf.padEnd(46)} skipped: the docling corpus is absent`);
      continue;
    }
    const markdown = await engineMarkdown(file, ["page_header", "page_footer", "page_number"]);
    const plain = pdftotext(file);
    if (plain === null) throw new Error("pdftotext is not installed (Debian: poppler-utils)");
    const layout = execFileSync("pdftotext", ["-layout", "-enc", "UTF-8", file, "-"], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
    const engine = markdownSubject(markdown);
    const baseline: FactSubject = { words: wordKey(plain), rows: layoutRows(layout) };
    let docOurs = 0;
    let docTheirs = 0;
    for (const fact of doc.facts) {
      const mine = factHolds(fact, engine);
      const other = factHolds(fact, baseline);
      if (mine) docOurs++;
      else ourFailures.push(`${doc.pdf}: ${describeFact(fact)}`);
      if (other) docTheirs++;
      if ("before" in fact && other && !mine) missedOrder.push(`${doc.pdf}: ${describeFact(fact)}`);
    }
    ours += docOurs;
    theirs += docTheirs;
    total += doc.facts.length;
    console.log(
      `${doc.pdf.padEnd(46)} ${doc.kind.slice(0, 44).padEnd(44)} ${String(doc.facts.length).padStart(5)}  ${String(docOurs).padStart(4)}  ${String(docTheirs).padStart(9)}`,
    );
  }
  console.log(
    `${"total".padEnd(91)} ${String(total).padStart(5)}  ${String(ours).padStart(4)}  ${String(theirs).padStart(9)}`,
  );
  console.log(`\norder facts pdftotext gets right and we miss: ${missedOrder.length}`);
  for (const line of missedOrder) console.log(`  ${line}`);
  if (values.verbose) {
    console.log(`\nfacts we miss: ${ourFailures.length}`);
    for (const line of ourFailures) console.log(`  ${line}`);
  }
}

if (import.meta.main) await main();
