/**
 * Whether lines set in a monospaced font read as code. A typewriter face alone is no evidence: typed letters,
 * court transcripts, pleadings and plain-text exports are set in Courier. Code shows itself in its lines:
 * brackets and operators, a TeX or shell command, a comment mark, or short lines of lowercase identifiers with no
 * sentence punctuation (`no shutdown`, `exit`, `import numpy as np`). Prose shows itself in capitalised words and
 * sentence punctuation. A web or mail address alone is neither. TeX input is code wherever it stands in a block:
 * a LaTeX manual's example sets a sentence over a few lines with one command among them (`kalbime \textsl{yaslan}.`),
 * and no typed letter or transcript writes a TeX command.
 */

/** Signs of code inside a line: brackets, operators, a TeX command, a call `name(`, a statement's end `;`. */
const CODE_SIGN = /[{}[\]<>=|\\`~^]|[\w)]\(|;\s*$|->|::|&&|(?:^|\s)\/\/|\/\*|^\s*(?:#|\$\s|%|>>>)|\w_\w/;

/** A web address inside a line, whose slashes and marks are no code. */
const INLINE_ADDRESS = /(?:https?:\/\/|www\.)\S+|\S+@\S+\.\S+/gi;

/** `www.example.org`, `name@host.org`, `https://x.io/a`, with an optional note number before it. */
const ADDRESS = /^(?:\d{1,2}\s+)?(?:\S+@\S+\.\S+|(?:https?:\/\/|www\.)\S+)$/i;

/** A line of one repeated mark (`-----`, `=====`, `*****`): a listing's rule. */
const MARK_RULE = /^([-=*_~+#])\1{2,}$/;

/** A capitalised word, or sentence punctuation: a comma or stop between words, or a stop at the end. */
const PROSE_SIGN = /(?:^|[\s("'])\p{Lu}\p{Ll}|\p{Lu}{2,}|[,.?!]\s+\S|[,.?!]$/u;

/**
 * TeX input: a command of small letters after a space, a bracket or a mark, opening a group or an option or ended
 * by a space (`\textsl{`, `\newline `, `\usepackage[`); or a comment, a `%` opening the line or ending a word at
 * the line's end (TeX's line joined without a space: `Slo%`). A path's `C:\Users` and a percentage are neither.
 */
const TEX_INPUT = /(?:^|[\s!?.,;({[\]}])\\[a-z]{2,}(?:[{[\s]|$)|^\s*%|\p{L}%$/u;

type LineKind = "code" | "prose" | "neutral";

function lineKind(raw: string): LineKind {
  const line = raw.trim();
  if (line === "" || ADDRESS.test(line)) return "neutral";
  if (CODE_SIGN.test(line.replace(INLINE_ADDRESS, "x"))) return "code";
  if (!/\p{L}/u.test(line)) return "neutral";
  if (PROSE_SIGN.test(line)) return "prose";
  const words = line.split(/\s+/);
  // A long line of small-letter words is a line of a sentence; a short one is a command or a statement.
  return words.length <= 4 ? "code" : "prose";
}

/**
 * True when the monospaced `lines` (one block's, in order) read as code: a line is TeX input, more lines show code
 * than prose, or every line is a rule of repeated marks, which markdown would otherwise read as a rule of its own.
 */
export function readsAsCode(lines: readonly string[]): boolean {
  if (lines.some((line) => TEX_INPUT.test(line.trim()))) return true;
  let code = 0;
  let prose = 0;
  for (const line of lines) {
    const kind = lineKind(line);
    if (kind === "code") code++;
    else if (kind === "prose") prose++;
  }
  if (code > prose) return true;
  return code === 0 && prose === 0 && lines.some((line) => MARK_RULE.test(line.trim()));
}
