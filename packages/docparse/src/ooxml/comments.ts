import type { ItemSink, Provenance, TextItem } from "../model.ts";

/**
 * A reviewer's comment as a text item after the content it annotates, its markdown naming the author and time:
 * `[author: Jane Smith (JS), time: 2026-06-18T17:35:35.236]: text`.
 */
export function addComment(
  sink: ItemSink,
  text: string,
  author: string | null,
  time: string | null,
  prov: Provenance,
): void {
  const body = text.replace(/\s+/g, " ").trim();
  if (!body) return;
  const who = [author ? `author: ${author}` : null, time ? `time: ${time}` : null].filter(Boolean).join(", ");
  sink.add<TextItem>({
    label: "text",
    text: body,
    markdown: who ? `[${who}]: ${body}` : body,
    comment: { author, time },
    furniture: false,
    prov: [prov],
  });
}
