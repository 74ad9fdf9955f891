import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import type { FragmentType } from "@svc/contract";
import { parseDocument } from "../index.ts";
import { DOCLING_DATA } from "../test-corpus.ts";

/**
 * The PDFs the real-world evaluations (`eval:coverage`, `eval:facts`) read: the docling corpus's PDFs and the
 * public PDFs kept in `packages/docparse/test/real-world` (each with its licence there), and `pdftotext`, the
 * baseline they are compared with.
 */

export const REAL_WORLD_DIR = fileURLToPath(new URL("../../test/real-world/", import.meta.url));

export interface EvalPdf {
  /** `docling/<name>` or `real-world/<name>`. */
  id: string;
  path: string;
}

function pdfsIn(dir: string, prefix: string): EvalPdf[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.toLowerCase().endsWith(".pdf"))
    .sort()
    .map((name) => ({ id: `${prefix}/${name}`, path: path.join(dir, name) }));
}

/** Every PDF of both sets; docling's only when the shared corpus is there. */
export function evalPdfs(): EvalPdf[] {
  const docling = DOCLING_DATA
    ? [
        ...pdfsIn(path.join(DOCLING_DATA, "pdf/sources"), "docling"),
        ...pdfsIn(path.join(DOCLING_DATA, "pdf"), "docling"),
      ]
    : [];
  return [...docling, ...pdfsIn(REAL_WORLD_DIR, "real-world")];
}

/** pdftotext's text of a PDF (its default reading order), or null when pdftotext is not installed. */
export function pdftotext(file: string): string | null {
  try {
    return execFileSync("pdftotext", ["-enc", "UTF-8", file, "-"], {
      encoding: "utf8",
      maxBuffer: 64 << 20,
      stdio: ["ignore", "pipe", "ignore"],
    });
  } catch {
    return null;
  }
}

/** Our text of a PDF: the markdown, with the given sections left out. */
export async function engineMarkdown(file: string, ignoreSections: FragmentType[] = []): Promise<string> {
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: ignoreSections } },
  });
  return result.markdown;
}

/** Our text of a PDF with nothing left out: the markdown and the furniture it leaves out. */
export async function engineAllText(file: string): Promise<string> {
  const { result } = await parseDocument({
    bytes: new Uint8Array(readFileSync(file)),
    mimeType: "application/pdf",
    options: { parsing: { ignore_sections: [] } },
  });
  const furniture = new Set(["page_header", "page_footer", "page_number"]);
  const furnitureText = result.pages.flatMap((page) =>
    (page.page_fragments ?? []).filter((f) => furniture.has(f.fragment_type)).map((f) => f.content.content),
  );
  return [result.markdown, ...furnitureText].join("\n");
}

/** Folded for matching: NFKC, lower case, typographic quotes and dashes plain, whitespace single. */
export function foldText(text: string): string {
  return text
    .normalize("NFKC")
    .toLowerCase()
    .replace(/[‘’‛′]/g, "'")
    .replace(/[“”„″]/g, '"')
    .replace(/[‐‑‒–—―−]/g, "-")
    .replace(/\s+/g, " ")
    .trim();
}

/** Words (runs of letters and digits) of a text, folded; a word hyphenated at a line end (`-`, U+2010 or the Armenian hyphen U+058A) joined. */
export function plainWords(text: string): string[] {
  const joined = foldText(text.replace(/(\p{L})[-\u2010\u058A]\n\s*(\p{Ll})/gu, "$1$2"));
  return joined.match(/[\p{L}\p{N}]+/gu) ?? [];
}
