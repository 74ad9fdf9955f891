/** A character that marks a list item when it stands alone before the item's text (a slide's ● and ○). */
export const BULLET = /^[•◦▪▫‣⁃○●■□◆◇►▸➢➤·]$/u;
