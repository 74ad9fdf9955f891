/**
 * `npm run eval:coverage [-- --file name]`: nothing lost. Per PDF of the evaluation sets, the share of
 * pdftotext's words (a multiset) that our output holds, furniture included, with the words lost; then heading
 * F1 against the docling references' headings.
 */
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { DOCLING_DATA } from "../test-corpus.ts";
import { engineAllText, engineMarkdown, evalPdfs, foldText, pdftotext, plainWords } from "./pdf-sets.ts";

/** Multiset recall of `reference` in `ours`, and the reference words ours lacks (with how many are missing). */
export function wordRecall(
  reference: readonly string[],
  ours: readonly string[],
): { recall: number; lost: Map<string, number> } {
  const have = new Map<string, number>();
  for (const word of ours) have.set(word, (have.get(word) ?? 0) + 1);
  const lost = new Map<string, number>();
  let found = 0;
  for (const word of reference) {
    const left = have.get(word) ?? 0;
    if (left > 0) {
      have.set(word, left - 1);
      found++;
    } else lost.set(word, (lost.get(word) ?? 0) + 1);
  }
  return { recall: reference.length === 0 ? 1 : found / reference.length, lost };
}

/** The headings of a markdown text (`#` lines), folded. */
export function headings(markdown: string): string[] {
  return markdown
    .split("\n")
    .filter((line) => /^#{1,6} /.test(line))
    .map((line) =>
      foldText(line.replace(/^#+ /, ""))
        .replace(/[^\p{L}\p{N}]+/gu, " ")
        .trim(),
    )
    .filter((text) => text.length > 0);
}

/** Matches of two heading lists as multisets: true positives, and the sizes of each. */
export function headingMatches(reference: readonly string[], ours: readonly string[]): number {
  const left = [...ours];
  let matched = 0;
  for (const heading of reference) {
    const at = left.indexOf(heading);
    if (at >= 0) {
      left.splice(at, 1);
      matched++;
    }
  }
  return matched;
}

const fmt = (value: number) => value.toFixed(3);

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { file: { type: "string" } } });
  const pdfs = evalPdfs().filter((pdf) => !values.file || pdf.id.includes(values.file));
  console.log(`${"pdf".padEnd(48)} words  recall  lost (pdftotext's words we lack)`);
  let below = 0;
  let scored = 0;
  for (const pdf of pdfs) {
    const text = pdftotext(pdf.path);
    if (text === null) throw new Error("pdftotext is not installed (Debian: poppler-utils)");
    const reference = plainWords(text);
    if (reference.length === 0) {
      console.log(`${pdf.id.padEnd(48)} ${"0".padStart(5)}       -  (no text layer)`);
      continue;
    }
    let ours: string[];
    try {
      ours = plainWords(await engineAllText(pdf.path));
    } catch (error) {
      console.log(`${pdf.id.padEnd(48)} failed: ${error instanceof Error ? error.message : error}`);
      below++;
      continue;
    }
    const { recall, lost } = wordRecall(reference, ours);
    scored++;
    if (recall < 0.99) below++;
    const worst = [...lost]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 8)
      .map(([word, n]) => (n > 1 ? `${word}×${n}` : word))
      .join(" ");
    console.log(`${pdf.id.padEnd(48)} ${String(reference.length).padStart(5)}  ${fmt(recall)}  ${worst}`);
  }
  console.log(`\n${scored} PDFs scored, ${below} below 0.99 recall of pdftotext's words`);

  // Heading F1 against the docling references (their `#` lines), micro-averaged over the files.
  if (!DOCLING_DATA) return;
  let tp = 0;
  let nRef = 0;
  let nOurs = 0;
  console.log(`\n${"docling reference".padEnd(48)} ref  ours  match`);
  for (const pdf of pdfs.filter((p) => p.id.startsWith("docling/"))) {
    const stem = path.basename(pdf.path, ".pdf");
    const refFile = path.join(DOCLING_DATA, "pdf/groundtruth", `${stem}.md`);
    if (!existsSync(refFile)) continue;
    const reference = headings(readFileSync(refFile, "utf8"));
    const ours = headings(await engineMarkdown(pdf.path));
    const matched = headingMatches(reference, ours);
    tp += matched;
    nRef += reference.length;
    nOurs += ours.length;
    console.log(
      `${pdf.id.padEnd(48)} ${String(reference.length).padStart(3)}  ${String(ours.length).padStart(4)}  ${String(matched).padStart(5)}`,
    );
  }
  const precision = nOurs === 0 ? 0 : tp / nOurs;
  const recall = nRef === 0 ? 0 : tp / nRef;
  const f1 = precision + recall === 0 ? 0 : (2 * precision * recall) / (precision + recall);
  console.log(`heading precision ${fmt(precision)}  recall ${fmt(recall)}  F1 ${fmt(f1)}`);
}

if (import.meta.main) await main();
