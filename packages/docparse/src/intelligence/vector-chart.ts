import type { PDFDocumentProxy } from "pdfjs-dist/types/src/display/api.js";
import type { DocumentModel } from "../model.ts";

/** Charts drawn as vector graphics on PDF pages, added to the model as chart figures. */
export async function addVectorCharts(_model: DocumentModel, _pdf: PDFDocumentProxy): Promise<void> {}
