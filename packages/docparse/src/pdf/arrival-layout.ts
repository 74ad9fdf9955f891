import type { ParsingOptions } from "@svc/contract";
import type { PageGeometry } from "../paginated/geometry.ts";
import { type LayoutStages, layoutPage, type PageLayout } from "../paginated/layout.ts";
import { detectSignatures } from "../paginated/signatures.ts";
import { tableStage } from "../paginated/tables-stage.ts";
import { dropUnmapped } from "./text.ts";
import { type UnreadText, unreadText } from "./unread-text.ts";

/**
 * A PDF page laid out as soon as it is read, by the thread that read it (the parse thread, or the extraction
 * helper of extract-pages.ts): the layout of a page depends on that page's geometry and the parse's options
 * alone, so it comes out the same in either thread, and the parse thread is left only the document-wide steps.
 * Pages that still need something before their layout (OCR of their unread text, of their scan, a barcode search
 * on their rendering) are laid out by the parse thread once they have it.
 */

/** The parsing options a page's layout depends on, as a structured clone carries them to a helper thread. */
export interface LayoutRequest {
  tables: boolean;
  dropStruck: boolean;
  signatures: boolean;
}

/** The layout request of a parse's options. */
export function layoutRequestOf(parsing: Required<ParsingOptions>): LayoutRequest {
  return {
    tables: !parsing.disable_layout_detection,
    dropStruck: parsing.remove_strikethrough_lines,
    signatures: parsing.signature_detection,
  };
}

/** The layout stages of a request. */
export function layoutStages(request: LayoutRequest): LayoutStages {
  return {
    detectTables: request.tables ? tableStage : () => [],
    dropStruck: request.dropStruck,
    ...(request.signatures ? { detectSignatures } : {}),
  };
}

/** The page without the glyphs that map to no character: what OCR did not replace of them goes before layout. */
export function withoutUnmapped(page: PageGeometry): PageGeometry {
  return { ...page, runs: dropUnmapped(page.runs) };
}

/** A page just read, laid out when it needs nothing more; else its unread text when that was looked for. */
export interface Arrival {
  layout: PageLayout | null;
  /**
   * The page's unread text (its regions to OCR and its garbled runs, which are runs of that very page), found
   * to decide that the page is not laid out yet: its OCR starts from it instead of looking again. Null when
   * the page is laid out, is no text-layer page, or the request is null.
   */
  unread: UnreadText | null;
}

/**
 * The layout of a page just read, when it needs nothing more: a text layer with no unread text (images holding
 * text, outlined or unmapped glyphs). Null for the other pages (with the unread text found, when it was looked
 * for), and when the request is null.
 */
export function layoutOnArrival(page: PageGeometry, request: LayoutRequest | null): Arrival {
  if (!request || page.textSource !== "text-layer") return { layout: null, unread: null };
  const unread = unreadText(page);
  if (unread.regions.length > 0) return { layout: null, unread };
  return { layout: layoutPage(withoutUnmapped(page), layoutStages(request)), unread: null };
}
