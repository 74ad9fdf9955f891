import type { FormatBackend } from "../backend.ts";
import { orgToMarkdown } from "../markup/org.ts";
import { rstToMarkdown } from "../markup/rst.ts";
import { inputText } from "../text-decoding.ts";
import { markdownBackend } from "./markdown.ts";

/**
 * A lightweight markup read by translating it to markdown and reading that with the markdown backend: headings,
 * lists, tables and code come out as they do from markdown. Char spans point into the translation, not the
 * source, so they are dropped.
 */
function convertedMarkup(
  name: string,
  mimeTypes: string[],
  what: string,
  convert: (text: string) => string,
): FormatBackend {
  return {
    name,
    mimeTypes,
    countPages: () => 1,
    async load(input) {
      const { text, warnings } = inputText(input, what);
      const doc = await markdownBackend.load({
        ...input,
        bytes: undefined,
        text: convert(text),
        mimeType: "text/markdown",
      });
      return {
        ...doc,
        mimeType: mimeTypes[0],
        backend: name,
        items: doc.items.map((item) => ({ ...item, prov: item.prov.map((p) => ({ ...p, charSpan: null })) })),
        warnings: [...warnings, ...doc.warnings],
      };
    },
  };
}

/** reStructuredText (`.rst`). */
export const rstBackend = convertedMarkup(
  "rst",
  ["text/x-rst", "text/prs.fallenstein.rst"],
  "reStructuredText",
  rstToMarkdown,
);

/** Org mode (`.org`). */
export const orgBackend = convertedMarkup("org", ["text/org", "text/x-org"], "Org", orgToMarkdown);
