/** Why OCR of a page failed. */
export class OcrError extends Error {
  readonly code: "OCR_UNAVAILABLE" | "OCR_TIMEOUT" | "OCR_ABORTED" | "OCR_FAILED";
  constructor(message: string, code: OcrError["code"]) {
    super(message);
    this.name = "OcrError";
    this.code = code;
  }
}
