/** Marks that open a list item (a slide's ● and ○); not dashes or asterisks, which also stand for minus and notes. */
const MARKS = "•◦▪▫‣⁃○●■□◆◇►▸➢➤·";

/** A character that marks a list item when it stands alone before the item's text. */
export const BULLET = new RegExp(`^[${MARKS}]$`, "u");

/** A text that is a bulleted item: its mark, a space, its text. */
export const BULLETED = new RegExp(`^[${MARKS}]\\s+\\S`, "u");
