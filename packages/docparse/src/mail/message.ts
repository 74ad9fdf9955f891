import type { BackendInput, BackendRegistry } from "../backend.ts";
import { htmlBackend } from "../backends/html.ts";
import { textBackend } from "../backends/text.ts";
import type { FigureItem } from "../model.ts";
import { loadEmbedded, type SectionedDocument } from "../sections.ts";

/**
 * Writes one message (an email, an Outlook item, or one nested in either) into a sectioned document, the same
 * way whatever it was read from: its subject as a heading, a header block (From, To, Cc, Date), the body (HTML
 * through the HTML backend, else text), inline images as figures, then each attachment as a section of its own,
 * parsed by the backend of its type.
 */

export interface MessageHeader {
  subject: string | null;
  from: string | null;
  to: string | null;
  cc: string | null;
  date: string | null;
}

export interface Attachment {
  name: string | null;
  /** The type the message declares for it, a hint (the bytes decide). */
  declared: string | null;
}

/** Attachments read per document; more are named in a warning, not read (a message built to exhaust the parser). */
export const MAX_ATTACHMENTS = 200;

export class MessageWriter {
  #attachments = 0;
  readonly out: SectionedDocument;
  readonly registry: BackendRegistry;
  readonly input: BackendInput;

  constructor(out: SectionedDocument, registry: BackendRegistry, input: BackendInput) {
    this.out = out;
    this.registry = registry;
    this.input = input;
  }

  header(header: MessageHeader, level: number): void {
    this.out.heading(header.subject?.trim() || "(no subject)", level);
    const lines = (
      [
        ["From", header.from],
        ["To", header.to],
        ["Cc", header.cc],
        ["Date", header.date],
      ] as const
    )
      .filter(([, value]) => value && value.trim() !== "")
      .map(([name, value]) => `${name}: ${value?.replace(/\s+/g, " ").trim()}`);
    if (lines.length > 0) this.out.text(lines.join("\n"));
  }

  /** A body in HTML, read by the HTML backend onto the message's page. */
  async html(html: string): Promise<void> {
    const doc = await htmlBackend.load({
      ...this.input,
      bytes: undefined,
      text: html,
      mimeType: "text/html",
    });
    this.out.append({ ...doc, warnings: [] }, { samePage: true, levelShift: 1 });
  }

  /** A plain-text body, paragraphs at blank lines. */
  async text(text: string): Promise<void> {
    const doc = await textBackend.load({ ...this.input, bytes: undefined, text, mimeType: "text/plain" });
    this.out.append({ ...doc, warnings: [] }, { samePage: true });
  }

  figure(name: string | null, source: string | null): void {
    this.out.sink.add<FigureItem>({
      label: "figure",
      caption: name,
      source,
      furniture: false,
      prov: [{ page: this.out.page(), bbox: null, charSpan: null }],
    });
  }

  /** An attached file: a heading naming it, then its content parsed by its own backend on pages of its own. */
  async attachment(file: Attachment, bytes: Uint8Array, level: number): Promise<void> {
    const heading = { text: `Attachment: ${file.name ?? "(unnamed)"}`, level };
    if (++this.#attachments > MAX_ATTACHMENTS) {
      this.out.heading(heading.text, heading.level);
      if (this.#attachments === MAX_ATTACHMENTS + 1) {
        this.out.warnings.push(
          `Only the first ${MAX_ATTACHMENTS} attachments were read; the others are only named`,
        );
      }
      return;
    }
    const doc = await loadEmbedded(
      this.registry,
      this.input,
      { bytes, name: file.name, declared: file.declared },
      "attachment",
      this.out.warnings,
    );
    if (doc) this.out.append(doc, { levelShift: level, heading });
    else this.out.heading(heading.text, heading.level);
  }
}
