/**
 * Inline runs → markdown: consecutive runs of the same formatting are joined, then wrapped in `**`, `*`, `~~`
 * and links; spaces at a run's edges stay outside its markers so the markdown stays valid.
 */
export interface InlineRun {
  text: string;
  bold: boolean;
  italic: boolean;
  strike: boolean;
  /** A link target, or null. */
  link: string | null;
  /** Markdown written as is (an inline formula, a footnote reference): not escaped, not formatted. */
  raw?: boolean;
  /** The plain text of a raw run (its markdown is `text`); none when left out. */
  plain?: string;
}

function escapeInline(text: string): string {
  return text.replace(/([\\`*_[\]])/g, "\\$1");
}

function wrap(text: string, run: InlineRun): string {
  if (run.raw) return text;
  const body = escapeInline(text);
  const trimmed = body.trim();
  if (!trimmed) return body;
  const lead = body.slice(0, body.indexOf(trimmed));
  const trail = body.slice(lead.length + trimmed.length);
  let marked = trimmed;
  if (run.strike) marked = `~~${marked}~~`;
  if (run.bold && run.italic) marked = `***${marked}***`;
  else if (run.bold) marked = `**${marked}**`;
  else if (run.italic) marked = `*${marked}*`;
  return `${lead}${marked}${trail}`;
}

function sameStyle(a: InlineRun, b: InlineRun): boolean {
  return (
    a.bold === b.bold &&
    a.italic === b.italic &&
    a.strike === b.strike &&
    a.link === b.link &&
    !a.raw &&
    !b.raw
  );
}

/** The plain text and the markdown of a sequence of runs. */
export function renderRuns(runs: readonly InlineRun[]): { text: string; markdown: string } {
  let text = "";
  let markdown = "";
  let i = 0;
  while (i < runs.length) {
    const first = runs[i];
    let joined = first.text;
    let j = i + 1;
    while (j < runs.length && sameStyle(first, runs[j])) joined += runs[j++].text;
    // A link groups every run with its target, whatever their formatting.
    if (first.link !== null && !first.raw) {
      let k = j;
      let inner = wrap(joined, { ...first, link: null });
      let plain = joined;
      while (k < runs.length && runs[k].link === first.link) {
        inner += wrap(runs[k].text, { ...runs[k], link: null });
        plain += runs[k].text;
        k++;
      }
      text += plain;
      const label = inner.trim();
      markdown += label ? `[${label}](${first.link})` : "";
      i = k;
      continue;
    }
    text += first.raw ? (first.plain ?? "") : joined;
    markdown += wrap(joined, first);
    i = j;
  }
  return { text: text.replace(/[ \t]+/g, " ").trim(), markdown: markdown.replace(/[ \t]+/g, " ").trim() };
}
