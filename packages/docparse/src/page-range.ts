import { parsePageRange } from "@svc/contract";
import { DocumentLoadError } from "./model.ts";

/** The pages a request asks for (every page when the range is null), or a DocumentLoadError naming the problem. */
export function requestedPages(pageRange: string | null, total: number): number[] {
  if (pageRange === null) return Array.from({ length: total }, (_, i) => i + 1);
  const range = parsePageRange(pageRange, total);
  if (!Array.isArray(range)) throw new DocumentLoadError(range.message, range.code);
  return range;
}
