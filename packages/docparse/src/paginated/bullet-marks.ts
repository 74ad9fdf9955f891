/**
 * The marks that open a list item, written once: bullets, dashes, check marks and enumerators. The rules that
 * look for list items (paragraph grouping in blocks.ts, the lines of a slide's list in lines.ts, lists side by
 * side in side-lists.ts, a column of marks in tables/aligned.ts) build their patterns from these groups, each
 * taking the groups it means. The marks that open a note are here too.
 */

/**
 * A note's mark, as a pattern to build on (with the `u` flag): a number of one to three digits of any script (a
 * Persian note's `۸`), or a reference sign. Notes
 * (`note-marker.ts`), line building (`lines.ts`) and footnotes (`footnotes.ts`) ask for the same marks.
 */
export const NOTE_MARK = String.raw`(?:\p{Nd}{1,3}|[*†‡§¶])`;

/**
 * Bullet characters: marks that open a list item and stand for nothing else in running text (a slide's ● and ○,
 * a word processor's • and ▪, an arrow ➢). Dashes and asterisks are apart: they also stand for minus and notes.
 */
export const BULLET_MARKS = "•◦▪▫‣⁃○●■□◆◇►▸▶➢➤·∙";

/** Dashes and the asterisk, escaped for a character class: an item's mark at a line's start, else a minus or a note. */
export const DASH_MARKS = "\\-–—*";

/** Check marks and ❖: a checklist's items in running text, but in a table's cell a yes, not a list's mark. */
export const CHECK_MARKS = "✓✔❖";

/** Enumerators: `1.`, `(2)`, `a)`, `(iv)`, `iv.` (a roman numeral opened by a parenthesis is closed by one). */
export const ENUMERATOR = String.raw`\(?\d{1,3}[.)]|\(?[a-zA-Z][.)]|\([ivxIVX]{1,4}\)|[ivxIVX]{1,4}[.)]`;

/** A reference's number in brackets alone (`[12]`): it opens an entry of a list of references. */
export const REFERENCE = /^\[\d{1,3}\]$/;

/** A character that marks a list item when it stands alone before the item's text. */
export const BULLET = new RegExp(`^[${BULLET_MARKS}]$`, "u");

/** A text that is a bulleted item: its mark, a space, its text. */
export const BULLETED = new RegExp(`^[${BULLET_MARKS}]\\s+\\S`, "u");
