/**
 * reStructuredText → CommonMark with GFM tables, for the markdown reader: section titles (underlined, or over-
 * and underlined, levels in order of first use), bullet and enumerated lists, literal blocks (`::` and the code
 * directives), grid and simple tables, images and figures; other directives keep their content, comments are
 * dropped. Inline markup: literals, hyperlinks and roles.
 */

const ADORNMENT = /^([=\-~^"'`#*+:._!$%&,;<>?@\\/|])\1{2,}\s*$/;
const BULLET = /^(\s*)([-*+•])\s+(.*)$/;
const ENUMERATED = /^(\s*)(\d+|#|[a-zA-Z]|[ivxlcdm]+)[.)]\s+(.*)$|^(\s*)\((\d+|#|[a-zA-Z])\)\s+(.*)$/;

function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/** Inline reStructuredText → markdown. */
export function rstInline(text: string): string {
  return text
    .replace(/``([^`]+)``/g, "`$1`")
    .replace(/`([^`<]+?)\s*<([^>]+)>`__?/g, "[$1]($2)")
    .replace(/:[\w.+-]+:`([^`]+)`/g, (_, inner: string) => inner.replace(/\s*<[^>]+>$/, ""))
    .replace(/`([^`]+)`_{1,2}/g, "$1")
    .replace(/(^|\s)\|([^|]+)\|(?=\s|$)/g, "$1$2");
}

/** Cells of a grid table (`+---+---+` borders) as rows; the row before a `+===+` border is the header. */
function gridTable(lines: string[]): { rows: string[][]; header: number } {
  const border = lines[0];
  const cuts: number[] = [];
  for (let i = 0; i < border.length; i++) if (border[i] === "+") cuts.push(i);
  const rows: string[][] = [];
  let header = 0;
  let current: string[] | null = null;
  for (const line of lines.slice(1)) {
    if (/^\+[-=+]+\+\s*$/.test(line.trim())) {
      if (current) rows.push(current.map((cell) => cell.trim()));
      if (line.includes("=")) header = rows.length;
      current = null;
      continue;
    }
    current ??= new Array(Math.max(1, cuts.length - 1)).fill("");
    for (let c = 0; c + 1 < cuts.length; c++) {
      const cell = line.slice(cuts[c] + 1, cuts[c + 1]).replace(/\|\s*$/, "");
      current[c] = `${current[c]} ${cell.trim()}`.trim();
    }
  }
  if (current) rows.push(current.map((cell) => cell.trim()));
  return { rows, header };
}

/** A simple table (`=====  =====` borders): columns from the border's runs; the row before a middle border is the header. */
function simpleTable(lines: string[]): { rows: string[][]; header: number } {
  const border = lines[0];
  const columns: [number, number][] = [];
  for (const match of border.matchAll(/=+/g)) columns.push([match.index, match.index + match[0].length]);
  const rows: string[][] = [];
  let header = 0;
  for (const line of lines.slice(1)) {
    if (/^[=\s]+$/.test(line) && line.includes("=")) {
      if (header === 0 && rows.length > 0) header = rows.length;
      continue;
    }
    if (line.trim() === "") continue;
    const row = columns.map(
      ([start, end], i) =>
        line.slice(start, i === columns.length - 1 ? undefined : columns[i + 1][0]).trim() ||
        line.slice(start, end).trim(),
    );
    // A line with text only in the first column continues the row above.
    if (row[0] === "" && rows.length > 0) {
      const last = rows[rows.length - 1];
      row.forEach((cell, i) => {
        if (cell) last[i] = `${last[i]} ${cell}`.trim();
      });
    } else rows.push(row);
  }
  return { rows, header: header === rows.length ? 0 : header };
}

function pipeTable({ rows, header }: { rows: string[][]; header: number }): string[] {
  if (rows.length === 0) return [];
  const width = Math.max(...rows.map((r) => r.length));
  const cell = (text: string) => rstInline(text).replace(/\|/g, "\\|");
  const line = (row: string[]) =>
    `| ${Array.from({ length: width }, (_, i) => cell(row[i] ?? "")).join(" | ")} |`;
  // Markdown tables need a header row; a table without one gets its first row as header.
  const headRows = Math.max(1, header);
  const head = rows.slice(0, headRows).reduce((a, b) => a.map((text, i) => `${text} ${b[i] ?? ""}`.trim()));
  return [line(head), `|${" --- |".repeat(width)}`, ...rows.slice(headRows).map(line), ""];
}

export function rstToMarkdown(source: string): string {
  const lines = source.replace(/\r\n?/g, "\n").replace(/\t/g, "        ").split("\n");
  const out: string[] = [];
  const styles: string[] = [];
  const listIndents: number[] = [];
  const level = (style: string) => {
    if (!styles.includes(style)) styles.push(style);
    return Math.min(6, styles.indexOf(style) + 1);
  };
  /** The indented block after line i (blank lines inside kept), and the index after it. */
  const block = (from: number, minIndent: number): [string[], number] => {
    let j = from;
    const body: string[] = [];
    while (j < lines.length && (lines[j].trim() === "" || indentOf(lines[j]) >= minIndent))
      body.push(lines[j++]);
    while (body.length > 0 && body[body.length - 1].trim() === "") body.pop();
    while (body.length > 0 && body[0].trim() === "") body.shift();
    const cut = Math.min(...body.filter((l) => l.trim()).map(indentOf));
    return [body.map((l) => l.slice(Number.isFinite(cut) ? cut : 0)), j];
  };
  const fence = (code: string[], language = "") => out.push("", `\`\`\`${language}`, ...code, "```", "");
  let i = 0;
  while (i < lines.length) {
    const line = lines[i];
    const trimmed = line.trim();
    const next = lines[i + 1] ?? "";
    // Over- and underlined title.
    if (
      ADORNMENT.test(trimmed) &&
      trimmed.length >= 3 &&
      next.trim() &&
      ADORNMENT.test((lines[i + 2] ?? "").trim()) &&
      !ADORNMENT.test(next.trim())
    ) {
      out.push("", `${"#".repeat(level(`over${trimmed[0]}`))} ${rstInline(next.trim())}`, "");
      i += 3;
      continue;
    }
    // Underlined title: the adornment at least as long as the title (a little shorter is tolerated).
    if (
      trimmed &&
      indentOf(line) === 0 &&
      ADORNMENT.test(next) &&
      next.trim().length >= Math.min(trimmed.length, 3) &&
      !/^[+|]/.test(trimmed)
    ) {
      if (!/^=+(\s+=+)+\s*$/.test(next)) {
        out.push("", `${"#".repeat(level(next.trim()[0]))} ${rstInline(trimmed)}`, "");
        i += 2;
        continue;
      }
    }
    // Grid table.
    if (/^\+[-=]+\+/.test(trimmed)) {
      const table: string[] = [];
      while (i < lines.length && /^[+|]/.test(lines[i].trim())) table.push(lines[i++].trim());
      out.push("", ...pipeTable(gridTable(table)));
      continue;
    }
    // Simple table: a border of two or more runs of `=`.
    if (/^=+(\s+=+)+\s*$/.test(trimmed)) {
      const table: string[] = [];
      let borders = 0;
      while (i < lines.length && (lines[i].trim() !== "" || borders < 3)) {
        if (/^=+(\s+=+)+\s*$/.test(lines[i].trim())) borders++;
        if (lines[i].trim() !== "") table.push(lines[i].slice(indentOf(line)));
        i++;
        if (borders === 3) break;
        if (
          lines[i] !== undefined &&
          lines[i].trim() === "" &&
          borders >= 2 &&
          !/^=/.test((lines[i + 1] ?? "").trim())
        )
          break;
      }
      out.push("", ...pipeTable(simpleTable(table)));
      continue;
    }
    // Directives and comments.
    const directive = /^\s*\.\.\s+([\w:-]+)::\s*(.*)$/.exec(line);
    if (directive) {
      const [name, argument] = [directive[1].toLowerCase(), directive[2].trim()];
      let j = i + 1;
      // Directive options (`:linenos:`) come first.
      while (j < lines.length && /^\s+:[\w-]+:/.test(lines[j])) j++;
      const [body, after] = block(j, indentOf(line) + 1);
      if (name === "code-block" || name === "code" || name === "sourcecode") fence(body, argument);
      else if (name === "image" || name === "figure") {
        out.push("", `![${body.find((l) => l.trim())?.trim() ?? ""}](${argument})`, "");
        if (name === "figure" && body.length > 0) out.push(...body.map(rstInline), "");
      } else if (name === "csv-table" || name === "list-table" || name === "raw" || name === "include") {
        if (name === "list-table") out.push("", ...pipeTable(listTable(body)));
        else if (name === "csv-table")
          out.push(
            "",
            ...pipeTable({
              rows: body
                .filter((l) => l.trim())
                .map((l) => l.split(",").map((c) => c.trim().replace(/^"|"$/g, ""))),
              header: 0,
            }),
          );
      } else {
        if (
          argument &&
          !["contents", "toctree", "index", "meta", "highlight", "role", "default-role"].includes(name)
        ) {
          out.push("", name === "title" ? `# ${rstInline(argument)}` : rstInline(argument), "");
        }
        if (!["toctree", "contents", "index", "meta", "only", "highlight"].includes(name))
          out.push("", ...body.map((l) => rstInline(l.trimStart())), "");
      }
      i = after;
      continue;
    }
    if (/^\s*\.\.(\s|$)/.test(line)) {
      // A comment, a target or a substitution definition.
      i = block(i + 1, indentOf(line) + 1)[1];
      continue;
    }
    // Literal block after a paragraph ending in `::`.
    if (trimmed.endsWith("::") && !trimmed.startsWith("..")) {
      const text = trimmed === "::" ? "" : trimmed.replace(/::$/, /\s::$/.test(trimmed) ? "" : ":");
      if (text) out.push(rstInline(text));
      let j = i + 1;
      while (j < lines.length && lines[j].trim() === "") j++;
      if (j < lines.length && indentOf(lines[j]) > indentOf(line)) {
        const [body, after] = block(j, indentOf(line) + 1);
        fence(body);
        i = after;
        continue;
      }
      i++;
      continue;
    }
    // Lists: depth by indentation.
    const bullet = BULLET.exec(line);
    const enumerated = bullet ? null : ENUMERATED.exec(line);
    if (
      (bullet || enumerated) &&
      (lines[i - 1] === undefined || lines[i - 1].trim() === "" || listIndents.length > 0)
    ) {
      const indent = (bullet?.[1] ?? enumerated?.[1] ?? enumerated?.[4] ?? "").length;
      while (listIndents.length > 0 && listIndents[listIndents.length - 1] > indent) listIndents.pop();
      if (listIndents.length === 0 || listIndents[listIndents.length - 1] < indent) listIndents.push(indent);
      const depth = listIndents.length - 1;
      const number = enumerated?.[2] ?? enumerated?.[5] ?? "";
      const marker = bullet ? "-" : /^\d+$/.test(number) ? `${number}.` : "1.";
      const content = bullet?.[3] ?? enumerated?.[3] ?? enumerated?.[6] ?? "";
      out.push(`${"   ".repeat(depth)}${marker} ${rstInline(content)}`);
      i++;
      continue;
    }
    if (trimmed === "")
      listIndents.length = listIndents.length > 0 && indentOf(next) > 0 ? listIndents.length : 0;
    // Field lists (`:Author: Name`) as lines of text; everything else dedented (indentation is not code here).
    const field = /^\s*:([^:]+):\s+(.*)$/.exec(line);
    out.push(
      field
        ? `${field[1]}: ${rstInline(field[2])}  `
        : listIndents.length > 0
          ? `${"   ".repeat(listIndents.length)}${rstInline(trimmed)}`
          : rstInline(trimmed),
    );
    i++;
  }
  return out.join("\n");
}

/** A list-table directive's body: `* -` starts a row, `-` a cell. */
function listTable(body: string[]): { rows: string[][]; header: number } {
  const rows: string[][] = [];
  for (const line of body) {
    const row = /^\*\s+-\s+(.*)$/.exec(line.trim());
    const cell = /^-\s+(.*)$/.exec(line.trim());
    if (row) rows.push([row[1]]);
    else if (cell && rows.length > 0) rows[rows.length - 1].push(cell[1]);
    else if (line.trim() && rows.length > 0) {
      const last = rows[rows.length - 1];
      last[last.length - 1] = `${last[last.length - 1]} ${line.trim()}`;
    }
  }
  return { rows, header: 1 };
}
