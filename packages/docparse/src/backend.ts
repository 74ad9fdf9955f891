import type { ParsingOptions } from "@svc/contract";
import type { DocumentModel } from "./model.ts";
import type { VisionTranscription } from "./vision/page-transcription.ts";

/** What a backend reads: the document's bytes, or text given directly (raw_text), and the request's options. */
export interface BackendInput {
  bytes?: Uint8Array;
  text?: string;
  mimeType: string;
  /** parsing_options with defaults filled. */
  parsing: Required<ParsingOptions>;
  /**
   * The request's page_range (`1-5,8`), or null for every page. Backends whose pages cost time to read (PDF,
   * images) read only these; the model still lists every page. The views apply the range in any case.
   */
  pageRange: string | null;
  /** The vision model pages read from their image may go to; absent: OCR only (the default). */
  vision?: VisionTranscription;
  /** How deep inside containers (emails, archives) this input is: 0 for the document itself. */
  depth?: number;
}

/**
 * Reads one family of formats into the document model. Adding a format is adding a backend to the registry:
 * nothing else branches on the type.
 */
export interface FormatBackend {
  /** Short name recorded in the model, e.g. `markdown`. */
  name: string;
  /** The media types this backend reads. */
  mimeTypes: readonly string[];
  /** Throws DocumentLoadError when the input is not a readable document of its type. */
  load(input: BackendInput): Promise<DocumentModel> | DocumentModel;
  /** The number of pages `load` would find, when it can be told cheaply from text without parsing. */
  countPages?(text: string): number;
}

/** Backends by media type; the first registered for a type wins. */
export class BackendRegistry {
  readonly #byType = new Map<string, FormatBackend>();

  constructor(backends: readonly FormatBackend[] = []) {
    for (const backend of backends) this.register(backend);
  }

  register(backend: FormatBackend): void {
    for (const type of backend.mimeTypes) {
      const key = type.toLowerCase();
      if (!this.#byType.has(key)) this.#byType.set(key, backend);
    }
  }

  /** The backend of a media type (parameters such as `; charset=utf-8` are ignored), or undefined. */
  get(mimeType: string): FormatBackend | undefined {
    return this.#byType.get(baseMimeType(mimeType));
  }

  /** Every media type some backend reads, sorted. */
  mimeTypes(): string[] {
    return [...this.#byType.keys()].sort();
  }
}

/** `Text/Plain; charset=utf-8` → `text/plain`. */
export function baseMimeType(mimeType: string): string {
  return mimeType.split(";")[0].trim().toLowerCase();
}
