import { element, findElement, findElements, type MarkupElement, type MarkupNode, rawText } from "./tree.ts";

/**
 * Maps a JATS (or NLM) journal article onto the HTML-shaped markup that `BlockReader` reads: the title apart;
 * authors and affiliations as paragraphs; each abstract under an "Abstract" heading (or its own title); body
 * sections as headings one level per nesting (top sections level 2); paragraphs, lists, definition lists,
 * quotes, code; `table-wrap` as a table with its label and caption; `fig` as a figure with its caption;
 * formulas as TeX where the article gives it; back matter (acknowledgments, appendices, notes) as sections and
 * the reference list as a list of citations.
 */

const ORDERED_LISTS = new Set(["order", "alpha-lower", "alpha-upper", "roman-lower", "roman-upper"]);

/** Inline JATS elements and their HTML counterparts. */
const INLINE: Record<string, string> = {
  bold: "b",
  italic: "i",
  monospace: "code",
  underline: "span",
  sc: "span",
  sup: "span",
  sub: "span",
  "named-content": "span",
  "styled-content": "span",
  abbrev: "span",
  xref: "span",
  email: "span",
  "fn-text": "span",
  strike: "s",
};

/** Elements left out of the text: metadata and cross-reference targets that are not prose. */
const DROPPED = new Set([
  "fn",
  "alternatives-meta",
  "object-id",
  "permissions",
  "history",
  "funding-group",
  "kwd-group",
]);

const text = (value: string): MarkupNode => ({ type: "text", value, start: -1, end: -1 });

const children = (el: MarkupElement, name: string) =>
  el.children.filter((c): c is MarkupElement => c.type === "element" && c.name === name);
const child = (el: MarkupElement, name: string) => children(el, name)[0] ?? null;

/** Text with whitespace runs as one space. */
function plain(node: MarkupNode | null): string {
  return node ? rawText(node).replace(/\s+/g, " ").trim() : "";
}

/** TeX of a formula when the article gives it, else the text of its MathML. */
function formulaText(el: MarkupElement): string {
  const tex = findElement(el, (e) => e.name === "tex-math");
  if (tex) {
    return plain(tex)
      .replace(/^\\documentclass[\s\S]*?\\begin\{document\}/, "")
      .replace(/\\end\{document\}\s*$/, "")
      .replace(/^\$+|\$+$/g, "")
      .trim();
  }
  return plain(el);
}

/** "Surname Given" for a JATS name, or the text of a string-name or collab. */
function personName(el: MarkupElement): string {
  if (el.name === "name") {
    return [plain(child(el, "given-names")), plain(child(el, "surname")), plain(child(el, "suffix"))]
      .filter(Boolean)
      .join(" ");
  }
  return plain(el);
}

/** A citation as one line: mixed citations keep their own punctuation; structured ones are joined by spaces. */
function citationText(ref: MarkupElement): string {
  const citation =
    findElement(
      ref,
      (e) => e.name === "mixed-citation" || e.name === "element-citation" || e.name === "nlm-citation",
    ) ?? ref;
  const spaced = citation.name !== "mixed-citation";
  const parts: string[] = [];
  const visit = (node: MarkupNode) => {
    if (node.type === "text") parts.push(node.value);
    else if (node.name === "name")
      parts.push(` ${plain(child(node, "surname"))} ${plain(child(node, "given-names"))} `);
    else if (node.name === "label") return;
    else {
      if (spaced) parts.push(" ");
      for (const c of node.children) visit(c);
      if (spaced) parts.push(" ");
    }
  };
  for (const c of citation.children) visit(c);
  return parts
    .join("")
    .replace(/\s+/g, " ")
    .replace(/\s+([,.;:])/g, "$1")
    .trim();
}

function heading(level: number, label: string, title: MarkupElement | null): MarkupElement | null {
  const content = title ? convertAll(title.children, level) : [];
  if (label === "" && plain(title) === "") return null;
  return element(`h${Math.min(6, Math.max(1, level))}`, label ? [text(`${label} `), ...content] : content);
}

/** A section-like element: its label and title as a heading, its content one level deeper. */
function section(el: MarkupElement, level: number, fallbackTitle = ""): MarkupNode[] {
  const title = child(el, "title");
  const label = plain(child(el, "label"));
  const out: MarkupNode[] = [];
  const head =
    heading(level, label, title) ??
    (fallbackTitle ? element(`h${Math.min(6, level)}`, [text(fallbackTitle)]) : null);
  if (head) out.push(head);
  for (const c of el.children) {
    if (c === title || (c.type === "element" && c.name === "label")) continue;
    out.push(...convert(c, level + 1));
  }
  return [element("section", out)];
}

function caption(el: MarkupElement): string {
  const label = plain(child(el, "label"));
  const cap = child(el, "caption");
  const body = cap
    ? cap.children
        .filter((c): c is MarkupElement => c.type === "element")
        .map((c) => plain(c))
        .filter(Boolean)
        .join(" ")
    : "";
  return [label, body].filter(Boolean).join(" ");
}

function tableWrap(el: MarkupElement, level: number): MarkupNode[] {
  const captionText = caption(el);
  const tables = findElements(el, (e) => e.name === "table");
  const out: MarkupNode[] = [];
  if (tables.length === 0) {
    // A table given only as an image.
    out.push(element("figure", [element("figcaption", [text(captionText)]), element("img")]));
  }
  tables.forEach((table, index) => {
    const converted = convertTable(table);
    if (index === 0 && captionText) converted.children.unshift(element("caption", [text(captionText)]));
    out.push(converted);
  });
  for (const foot of children(el, "table-wrap-foot"))
    out.push(element("div", convertAll(foot.children, level)));
  return out;
}

/** An XHTML table inside JATS: the same element names, cell content converted as JATS inline markup. */
function convertTable(table: MarkupElement): MarkupElement {
  const walk = (el: MarkupElement): MarkupElement => {
    if (el.name === "td" || el.name === "th")
      return element(el.name, convertAll(el.children, 6), el.attrs, el.start, el.end);
    return element(
      el.name,
      el.children.filter((c): c is MarkupElement => c.type === "element").map(walk),
      el.attrs,
      el.start,
      el.end,
    );
  };
  return walk(table);
}

function figure(el: MarkupElement): MarkupNode[] {
  return [
    element("figure", [element("figcaption", [text(caption(el))]), element("img")], {}, el.start, el.end),
  ];
}

function refList(el: MarkupElement, level: number): MarkupNode[] {
  const out: MarkupNode[] = [];
  const head =
    heading(level, plain(child(el, "label")), child(el, "title")) ??
    element(`h${Math.min(6, level)}`, [text("References")]);
  out.push(head);
  const items = children(el, "ref").map((ref) =>
    element("li", [text(citationText(ref))], {}, ref.start, ref.end),
  );
  if (items.length > 0) out.push(element("ul", items));
  for (const nested of children(el, "ref-list")) out.push(...refList(nested, level + 1));
  return out;
}

function convertAll(nodes: MarkupNode[], level: number): MarkupNode[] {
  return nodes.flatMap((node) => convert(node, level));
}

function convert(node: MarkupNode, level: number): MarkupNode[] {
  if (node.type === "text") return [node];
  const name = node.name.replace(/^mml:/, "");
  if (DROPPED.has(name)) return [];
  if (name in INLINE)
    return [element(INLINE[name], convertAll(node.children, level), {}, node.start, node.end)];
  switch (name) {
    case "sec":
    case "app":
    case "boxed-text":
    case "notes":
    case "glossary":
    case "fn-group":
      return section(node, level);
    case "ack":
      return section(node, level, "Acknowledgments");
    case "app-group":
      return section(node, level);
    case "ref-list":
      return refList(node, level);
    case "p":
      return [element("p", convertAll(node.children, level), {}, node.start, node.end)];
    case "title":
      return [element(`h${Math.min(6, level)}`, convertAll(node.children, level))];
    case "label":
      return [element("span", [...convertAll(node.children, level), text(" ")])];
    case "list": {
      const ordered = ORDERED_LISTS.has(node.attrs["list-type"] ?? "");
      const items = node.children.flatMap((c) =>
        c.type === "element" && c.name === "list-item"
          ? [
              element(
                "li",
                convertAll(
                  c.children.filter((x) => !(x.type === "element" && x.name === "label")),
                  level,
                ),
              ),
            ]
          : c.type === "element" && c.name === "title"
            ? []
            : [],
      );
      const title = child(node, "title");
      return [
        ...(title ? [element("p", convertAll(title.children, level))] : []),
        element(ordered ? "ol" : "ul", items),
      ];
    }
    case "def-list":
      return [
        element(
          "dl",
          children(node, "def-item").flatMap((item) => [
            element("dt", convertAll(child(item, "term")?.children ?? [], level)),
            ...children(item, "def").map((def) => element("dd", convertAll(def.children, level))),
          ]),
        ),
      ];
    case "disp-quote":
      return [element("blockquote", convertAll(node.children, level))];
    case "preformat":
    case "code":
      return [element("pre", [text(rawText(node))])];
    case "table-wrap":
      return tableWrap(node, level);
    case "table-wrap-group":
    case "fig-group":
      return convertAll(
        node.children.filter((c) => !(c.type === "element" && (c.name === "caption" || c.name === "label"))),
        level,
      );
    case "table":
      return [convertTable(node)];
    case "fig":
      return figure(node);
    case "graphic":
    case "media":
      return [element("img")];
    case "inline-graphic":
      return [];
    case "disp-formula":
      return [element("x-formula", [], { tex: formulaText(node) })];
    case "inline-formula":
    case "math":
      return [element("x-math", [], { tex: formulaText(node) })];
    case "tex-math":
      return [element("x-math", [], { tex: formulaText(node) })];
    case "ext-link":
    case "uri": {
      const href = node.attrs["xlink:href"] ?? node.attrs.href ?? plain(node);
      return [element("a", convertAll(node.children, level), { href })];
    }
    case "break":
      return [element("br")];
    case "caption":
    case "alternatives":
      return convertAll(node.children, level);
    default:
      return [element("span", convertAll(node.children, level), {}, node.start, node.end)];
  }
}

/** The article's title and its content as HTML-shaped markup. */
export function jatsToMarkup(article: MarkupElement): { title: string | null; body: MarkupElement } {
  const front = child(article, "front");
  const meta = front ? (findElement(front, (e) => e.name === "article-meta") ?? front) : null;
  const titleEl = meta ? findElement(meta, (e) => e.name === "article-title") : null;
  const out: MarkupNode[] = [];
  if (meta) {
    const authors = findElements(
      meta,
      (e) => e.name === "contrib" && (e.attrs["contrib-type"] ?? "author") === "author",
    )
      .map((contrib) => {
        const name = findElement(
          contrib,
          (e) => e.name === "name" || e.name === "string-name" || e.name === "collab",
        );
        return name ? personName(name) : "";
      })
      .filter(Boolean);
    if (authors.length > 0) out.push(element("p", [text(authors.join(", "))]));
    const affiliations = findElements(meta, (e) => e.name === "aff")
      .map((aff) =>
        aff.children
          .filter((c) => !(c.type === "element" && c.name === "label"))
          .map((c) => plain(c))
          .join(" ")
          .replace(/\s+/g, " ")
          .replace(/\s+([,.;])/g, "$1")
          .trim(),
      )
      .filter(Boolean);
    if (affiliations.length > 0) out.push(element("p", [text(affiliations.join("; "))]));
    for (const abstract of findElements(meta, (e) => e.name === "abstract" || e.name === "trans-abstract")) {
      out.push(...section(abstract, 2, "Abstract"));
    }
  }
  const body = child(article, "body");
  if (body) out.push(...convertAll(body.children, 2));
  const back = child(article, "back");
  if (back) out.push(...convertAll(back.children, 2));
  const floats = child(article, "floats-group");
  if (floats) out.push(...convertAll(floats.children, 2));
  return { title: titleEl ? plain(titleEl) || null : null, body: element("body", out) };
}
