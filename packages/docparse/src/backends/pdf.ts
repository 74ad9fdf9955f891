import type { FormatBackend } from "../backend.ts";

/**
 * PDF: geometry from pdf.js, OCR for pages without a text layer, then the paginated layout (pdf/load.ts).
 * The implementation is loaded on first use, so that starting a parse thread does not pay for pdf.js.
 */
export const pdfBackend: FormatBackend = {
  name: "pdf",
  mimeTypes: ["application/pdf", "application/x-pdf"],
  load: async (input) => (await import("../pdf/load.ts")).loadPdf(input),
};
