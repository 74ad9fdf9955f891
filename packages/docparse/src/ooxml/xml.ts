import { DocumentLoadError } from "../model.ts";

/**
 * A small XML reader for OOXML parts: elements with local names (namespace prefixes dropped, so Strict and
 * Transitional files read alike), attributes by local name, and text. No DTDs, no external entities: a part
 * that is not well formed is a DocumentLoadError naming the part.
 */
export interface XmlElement {
  /** Local name: `p` for `w:p`. */
  name: string;
  attrs: Record<string, string>;
  children: XmlNode[];
}

export type XmlNode = XmlElement | string;

/** Deeper nesting is refused: the readers walk the tree recursively, and no real part comes close. */
const MAX_DEPTH = 1_000;

const ENTITIES: Record<string, string> = { lt: "<", gt: ">", amp: "&", quot: '"', apos: "'" };

function decodeEntities(text: string): string {
  if (!text.includes("&")) return text;
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-zA-Z]+);/g, (whole, name: string) => {
    if (name[0] === "#") {
      const code = name[1] === "x" ? Number.parseInt(name.slice(2), 16) : Number.parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : "";
    }
    return ENTITIES[name] ?? whole;
  });
}

function localName(name: string): string {
  const colon = name.indexOf(":");
  return colon === -1 ? name : name.slice(colon + 1);
}

const ATTRIBUTE = /([^\s=/>]+)\s*=\s*("([^"]*)"|'([^']*)')/g;

/** Parses one XML part into its root element. `part` names the part in error messages. */
export function parseXml(text: string, part: string): XmlElement {
  const fail = (why: string): never => {
    throw new DocumentLoadError(`The part ${part} is not well-formed XML: ${why}`);
  };
  const root: XmlElement = { name: "#document", attrs: {}, children: [] };
  const stack: XmlElement[] = [root];
  const names: string[] = [];
  let at = 0;
  const length = text.length;
  while (at < length) {
    const open = text.indexOf("<", at);
    const end = open === -1 ? length : open;
    if (end > at && stack.length > 1) {
      stack[stack.length - 1].children.push(decodeEntities(text.slice(at, end)));
    }
    if (open === -1) break;
    const next = text.charCodeAt(open + 1);
    if (next === 0x3f /* ? */) {
      const close = text.indexOf("?>", open + 2);
      if (close === -1) fail("an unterminated processing instruction");
      at = close + 2;
    } else if (next === 0x21 /* ! */) {
      if (text.startsWith("<!--", open)) {
        const close = text.indexOf("-->", open + 4);
        if (close === -1) fail("an unterminated comment");
        at = close + 3;
      } else if (text.startsWith("<![CDATA[", open)) {
        const close = text.indexOf("]]>", open + 9);
        if (close === -1) fail("an unterminated CDATA section");
        if (stack.length > 1) stack[stack.length - 1].children.push(text.slice(open + 9, close));
        at = close + 3;
      } else {
        // <!DOCTYPE ...>: skipped; its entities are never expanded.
        const close = text.indexOf(">", open + 2);
        if (close === -1) fail("an unterminated declaration");
        at = close + 1;
      }
    } else if (next === 0x2f /* / */) {
      const close = text.indexOf(">", open + 2);
      if (close === -1) fail("an unterminated end tag");
      const name = text.slice(open + 2, close).trim();
      if (names.length === 0 || names[names.length - 1] !== name) {
        fail(`</${name}> does not close <${names[names.length - 1] ?? "nothing"}>`);
      }
      names.pop();
      stack.pop();
      at = close + 1;
    } else {
      const close = findTagEnd(text, open + 1);
      if (close === -1) fail("an unterminated start tag");
      const selfClosing = text.charCodeAt(close - 1) === 0x2f;
      const body = text.slice(open + 1, selfClosing ? close - 1 : close);
      const space = body.search(/[\s]/);
      const qname = space === -1 ? body : body.slice(0, space);
      if (!qname) fail("an element without a name");
      const attrs: Record<string, string> = {};
      if (space !== -1) {
        ATTRIBUTE.lastIndex = 0;
        for (let match = ATTRIBUTE.exec(body); match; match = ATTRIBUTE.exec(body)) {
          const key = match[1];
          if (key.startsWith("xmlns")) continue;
          attrs[localName(key)] = decodeEntities(match[3] ?? match[4] ?? "");
        }
      }
      const element: XmlElement = { name: localName(qname), attrs, children: [] };
      stack[stack.length - 1].children.push(element);
      if (!selfClosing) {
        if (stack.length > MAX_DEPTH) fail(`elements nested deeper than ${MAX_DEPTH}`);
        stack.push(element);
        names.push(qname);
      }
      at = close + 1;
    }
  }
  if (names.length > 0) fail(`<${names[names.length - 1]}> is never closed`);
  const top = root.children.find((child): child is XmlElement => typeof child !== "string");
  if (!top) fail("no root element");
  return top as XmlElement;
}

/** The index of the `>` ending a start tag, skipping quoted attribute values; -1 when there is none. */
function findTagEnd(text: string, from: number): number {
  let quote = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (quote) {
      if (c === quote) quote = 0;
    } else if (c === 0x22 || c === 0x27) {
      quote = c;
    } else if (c === 0x3e) {
      return i;
    }
  }
  return -1;
}

/** The element children of a node. */
export function elements(node: XmlElement): XmlElement[] {
  return node.children.filter((child): child is XmlElement => typeof child !== "string");
}

/** The first child element of that name, or undefined. */
export function child(node: XmlElement | undefined, name: string): XmlElement | undefined {
  if (!node) return undefined;
  for (const item of node.children) if (typeof item !== "string" && item.name === name) return item;
  return undefined;
}

/** The child elements of that name. */
export function childrenNamed(node: XmlElement | undefined, name: string): XmlElement[] {
  if (!node) return [];
  return node.children.filter((item): item is XmlElement => typeof item !== "string" && item.name === name);
}

/** Every descendant element of that name, in document order (not looking inside a match). */
export function descendants(node: XmlElement, name: string, out: XmlElement[] = []): XmlElement[] {
  for (const item of node.children) {
    if (typeof item === "string") continue;
    if (item.name === name) out.push(item);
    else descendants(item, name, out);
  }
  return out;
}

/** The concatenated text of a node and its descendants. */
export function textOf(node: XmlNode): string {
  if (typeof node === "string") return node;
  let out = "";
  for (const item of node.children) out += textOf(item);
  return out;
}

/** A path of child names, e.g. `path(sp, "nvSpPr", "nvPr", "ph")`. */
export function path(node: XmlElement | undefined, ...names: string[]): XmlElement | undefined {
  let current = node;
  for (const name of names) current = child(current, name);
  return current;
}
