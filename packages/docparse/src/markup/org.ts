/**
 * Org mode → CommonMark with GFM tables, for the markdown reader: `#+TITLE`, headlines by their stars (TODO
 * keywords, priorities and tags dropped), plain lists, tables (a rule after the first row makes it the header),
 * source, example and quote blocks, fixed-width lines; drawers, comments and other keywords are dropped.
 */

const KEYWORDS = /^(TODO|DONE|NEXT|WAITING|HOLD|CANCELLED|CANCELED)\s+/;

/** Inline Org → markdown: links, bold, italic, code and verbatim. */
export function orgInline(text: string): string {
  return text
    .replace(/\[\[([^\]]+)\]\[([^\]]+)\]\]/g, "[$2]($1)")
    .replace(/\[\[([^\]]+)\]\]/g, "<$1>")
    .replace(/(^|[\s(])[=~]([^\s=~](?:[^=~]*[^\s=~])?)[=~](?=[\s.,;:!?)]|$)/g, "$1`$2`")
    .replace(/(^|[\s(])\*([^\s*](?:[^*]*[^\s*])?)\*(?=[\s.,;:!?)]|$)/g, "$1**$2**")
    .replace(/(^|[\s(])\/([^\s/](?:[^/]*[^\s/])?)\/(?=[\s.,;:!?)]|$)/g, "$1*$2*")
    .replace(/(^|[\s(])\+([^\s+](?:[^+]*[^\s+])?)\+(?=[\s.,;:!?)]|$)/g, "$1~~$2~~");
}

export function orgToMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").split("\n");
  const out: string[] = [];
  const listIndents: number[] = [];
  // Under a #+TITLE (the level-1 heading), headlines start at level 2.
  const shift = lines.some((l) => /^#\+title:/i.test(l.trim())) ? 1 : 0;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const trimmed = line.trim();
    const keyword = /^#\+(\w+):\s*(.*)$/i.exec(trimmed);
    if (keyword) {
      const name = keyword[1].toUpperCase();
      if (name === "TITLE") out.push(`# ${orgInline(keyword[2])}`, "");
      else if (name === "AUTHOR" || name === "DATE" || name === "SUBTITLE")
        out.push(orgInline(keyword[2]), "");
      else if (name === "CAPTION") out.push(`*${orgInline(keyword[2])}*`, "");
      i++;
      continue;
    }
    const begin = /^#\+begin_(\w+)\s*(\S*)/i.exec(trimmed);
    if (begin) {
      const kind = begin[1].toLowerCase();
      const end = new RegExp(`^#\\+end_${kind}\\b`, "i");
      const body: string[] = [];
      i++;
      while (i < lines.length && !end.test(lines[i].trim())) body.push(lines[i++]);
      i++;
      const cut = Math.min(...body.filter((l) => l.trim()).map((l) => l.length - l.trimStart().length));
      const dedented = body.map((l) => l.slice(Number.isFinite(cut) ? cut : 0).replace(/^,(\*|#\+)/, "$1"));
      if (kind === "src" || kind === "example" || kind === "export")
        out.push("", `\`\`\`${kind === "src" ? begin[2] : ""}`, ...dedented, "```", "");
      else if (kind === "quote" || kind === "verse")
        out.push("", ...dedented.map((l) => `> ${orgInline(l)}`), "");
      else if (kind !== "comment") out.push("", ...dedented.map(orgInline), "");
      continue;
    }
    // Drawers (:PROPERTIES: ... :END:), comments and planning lines are not content.
    if (/^:[\w-]+:\s*$/.test(trimmed) && trimmed.toUpperCase() !== ":END:") {
      while (i < lines.length && lines[i].trim().toUpperCase() !== ":END:") i++;
      i++;
      continue;
    }
    if (/^#(\s|$)/.test(trimmed) || /^(SCHEDULED|DEADLINE|CLOSED):/.test(trimmed)) {
      i++;
      continue;
    }
    const headline = /^(\*+)\s+(.*)$/.exec(line);
    if (headline) {
      listIndents.length = 0;
      const text = headline[2]
        .replace(KEYWORDS, "")
        .replace(/^\[#[A-Z]\]\s*/, "")
        .replace(/\s+:[\w@#%:]+:\s*$/, "");
      out.push("", `${"#".repeat(Math.min(6, headline[1].length + shift))} ${orgInline(text)}`, "");
      i++;
      continue;
    }
    if (/^\|/.test(trimmed)) {
      const table: string[] = [];
      while (i < lines.length && /^\|/.test(lines[i].trim())) table.push(lines[i++].trim());
      out.push("", ...orgTable(table), "");
      continue;
    }
    if (/^:(\s|$)/.test(trimmed)) {
      const code: string[] = [];
      while (i < lines.length && /^:(\s|$)/.test(lines[i].trim()))
        code.push(lines[i++].trim().replace(/^: ?/, ""));
      out.push("", "```", ...code, "```", "");
      continue;
    }
    // `*` is a bullet only when indented (at the margin it starts a headline).
    const item = /^(\s*)([-+]|\d+[.)])\s+(.*)$/.exec(line) ?? /^(\s+)(\*)\s+(.*)$/.exec(line);
    if (item) {
      const indent = item[1].length;
      while (listIndents.length > 0 && listIndents[listIndents.length - 1] > indent) listIndents.pop();
      if (listIndents.length === 0 || listIndents[listIndents.length - 1] < indent) listIndents.push(indent);
      const ordered = /\d/.test(item[2]);
      const text = item[3].replace(/^\[[ Xx-]\]\s*/, "").replace(/^(.*?)\s+::\s+/, "**$1**: ");
      const marker = ordered ? `${item[2].replace(/\D/g, "")}.` : "-";
      out.push(`${"   ".repeat(listIndents.length - 1)}${marker} ${orgInline(text)}`);
      i++;
      continue;
    }
    if (trimmed === "") listIndents.length = 0;
    out.push(
      listIndents.length > 0
        ? `${"   ".repeat(listIndents.length)}${orgInline(trimmed)}`
        : orgInline(trimmed),
    );
    i++;
  }
  return out.join("\n");
}

/** An Org table as a pipe table; a rule (`|---+---|`) after the first row makes that row the header. */
function orgTable(lines: string[]): string[] {
  const rows: string[][] = [];
  let header = 0;
  for (const line of lines) {
    if (/^\|[-+]+\|?$/.test(line)) {
      if (header === 0 && rows.length > 0) header = rows.length;
      continue;
    }
    rows.push(
      line
        .replace(/^\|/, "")
        .replace(/\|$/, "")
        .split("|")
        .map((cell) => orgInline(cell.trim()).replace(/\|/g, "\\|")),
    );
  }
  if (rows.length === 0) return [];
  const width = Math.max(...rows.map((r) => r.length));
  const line = (row: string[]) => `| ${Array.from({ length: width }, (_, k) => row[k] ?? "").join(" | ")} |`;
  const headRows = Math.max(1, header);
  const head = rows.slice(0, headRows).reduce((a, b) => a.map((t, k) => `${t} ${b[k] ?? ""}`.trim()));
  return [line(head), `|${" --- |".repeat(width)}`, ...rows.slice(headRows).map(line)];
}
