/**
 * A small element tree that the markup backends (HTML, XML/JATS) build from their parsers' output and that
 * `readBlocks` walks: element names in lower case (HTML) or as written (XML, mapped before walking), attributes
 * as a record, and for every node its [start, end) offsets in the decoded source text when the parser gives them.
 */

export interface MarkupText {
  type: "text";
  value: string;
  start: number;
  end: number;
}

export interface MarkupElement {
  type: "element";
  name: string;
  attrs: Record<string, string>;
  children: MarkupNode[];
  start: number;
  end: number;
}

export type MarkupNode = MarkupText | MarkupElement;

export function element(
  name: string,
  children: MarkupNode[] = [],
  attrs: Record<string, string> = {},
  start = -1,
  end = -1,
): MarkupElement {
  return { type: "element", name, attrs, children, start, end };
}

/** The text under a node, every text node's value joined as is (no whitespace normalisation). */
export function rawText(node: MarkupNode): string {
  if (node.type === "text") return node.value;
  let out = "";
  for (const child of node.children) out += rawText(child);
  return out;
}

/** The first element under `node` (itself included) that satisfies `test`, depth first. */
export function findElement(node: MarkupNode, test: (el: MarkupElement) => boolean): MarkupElement | null {
  if (node.type !== "element") return null;
  if (test(node)) return node;
  for (const child of node.children) {
    const found = findElement(child, test);
    if (found) return found;
  }
  return null;
}

/** Every element under `node` (itself included) that satisfies `test`, not looking inside the ones found. */
export function findElements(node: MarkupNode, test: (el: MarkupElement) => boolean): MarkupElement[] {
  const found: MarkupElement[] = [];
  const visit = (current: MarkupNode) => {
    if (current.type !== "element") return;
    if (test(current)) {
      found.push(current);
      return;
    }
    for (const child of current.children) visit(child);
  };
  visit(node);
  return found;
}
