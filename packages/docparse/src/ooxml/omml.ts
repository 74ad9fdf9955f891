import { child, elements, type XmlElement } from "./xml.ts";

/**
 * Office Math (OMML) as a linear LaTeX-like string: fractions as `\frac{a}{b}`, scripts as `x^{2}`, roots,
 * n-ary operators with limits, delimiters, functions, accents, matrices and equation arrays. Symbols with a
 * LaTeX name (Greek letters, ∞, ×, ≤...) are written by name; anything else is kept as its character.
 */
const SYMBOLS: Record<string, string> = {
  α: "\\alpha",
  β: "\\beta",
  γ: "\\gamma",
  δ: "\\delta",
  ε: "\\epsilon",
  ζ: "\\zeta",
  η: "\\eta",
  θ: "\\theta",
  ι: "\\iota",
  κ: "\\kappa",
  λ: "\\lambda",
  μ: "\\mu",
  ν: "\\nu",
  ξ: "\\xi",
  π: "\\pi",
  ρ: "\\rho",
  σ: "\\sigma",
  τ: "\\tau",
  υ: "\\upsilon",
  φ: "\\phi",
  χ: "\\chi",
  ψ: "\\psi",
  ω: "\\omega",
  Γ: "\\Gamma",
  Δ: "\\Delta",
  Θ: "\\Theta",
  Λ: "\\Lambda",
  Ξ: "\\Xi",
  Π: "\\Pi",
  Σ: "\\Sigma",
  Φ: "\\Phi",
  Ψ: "\\Psi",
  Ω: "\\Omega",
  "∞": "\\infty",
  "×": "\\times",
  "÷": "\\div",
  "±": "\\pm",
  "∓": "\\mp",
  "≤": "\\leq",
  "≥": "\\geq",
  "≠": "\\neq",
  "≈": "\\approx",
  "≡": "\\equiv",
  "∈": "\\in",
  "∉": "\\notin",
  "⊂": "\\subset",
  "⊆": "\\subseteq",
  "∪": "\\cup",
  "∩": "\\cap",
  "→": "\\rightarrow",
  "←": "\\leftarrow",
  "⇒": "\\Rightarrow",
  "⇔": "\\Leftrightarrow",
  "∂": "\\partial",
  "∇": "\\nabla",
  "∀": "\\forall",
  "∃": "\\exists",
  "·": "\\cdot",
  "⋅": "\\cdot",
  "…": "\\ldots",
  "⋯": "\\cdots",
  "∝": "\\propto",
  "′": "'",
  "−": "-",
};

const NARY: Record<string, string> = {
  "∑": "\\sum",
  "∏": "\\prod",
  "∫": "\\int",
  "∬": "\\iint",
  "∭": "\\iiint",
  "∮": "\\oint",
  "⋃": "\\bigcup",
  "⋂": "\\bigcap",
};

const ACCENTS: Record<string, string> = { "̂": "\\hat", "̃": "\\tilde", "̄": "\\bar", "̇": "\\dot", "⃗": "\\vec" };

const FUNCTIONS = new Set([
  "sin",
  "cos",
  "tan",
  "cot",
  "sec",
  "csc",
  "log",
  "ln",
  "exp",
  "lim",
  "max",
  "min",
  "det",
]);

function symbols(text: string): string {
  let out = "";
  for (const char of text) {
    const name = SYMBOLS[char];
    out += name ? ` ${name} ` : char;
  }
  return out;
}

function chr(node: XmlElement | undefined, name: string, fallback: string): string {
  const value = child(node, name)?.attrs.val;
  return value === undefined ? fallback : value;
}

function arg(node: XmlElement, name: string): string {
  const part = child(node, name);
  return part ? omml(part).trim() : "";
}

/** The LaTeX-like rendering of an OMML element and its content. */
export function omml(node: XmlElement): string {
  let out = "";
  for (const item of elements(node)) out += ommlElement(item);
  return out;
}

function ommlElement(node: XmlElement): string {
  switch (node.name) {
    case "r": {
      let text = "";
      for (const part of elements(node)) if (part.name === "t") text += part.children.join("");
      return FUNCTIONS.has(text.trim()) ? `\\${text.trim()}` : symbols(text);
    }
    case "f":
      return `\\frac{${arg(node, "num")}}{${arg(node, "den")}}`;
    case "sSup":
      return `${arg(node, "e")}^{${arg(node, "sup")}}`;
    case "sSub":
      return `${arg(node, "e")}_{${arg(node, "sub")}}`;
    case "sSubSup":
      return `${arg(node, "e")}_{${arg(node, "sub")}}^{${arg(node, "sup")}}`;
    case "sPre":
      return `{}_{${arg(node, "sub")}}^{${arg(node, "sup")}}${arg(node, "e")}`;
    case "rad": {
      const degree = arg(node, "deg");
      return degree ? `\\sqrt[${degree}]{${arg(node, "e")}}` : `\\sqrt{${arg(node, "e")}}`;
    }
    case "nary": {
      const props = child(node, "naryPr");
      const op = chr(props, "chr", "∫");
      const sub = arg(node, "sub");
      const sup = arg(node, "sup");
      return `${NARY[op] ?? op}${sub ? `_{${sub}}` : ""}${sup ? `^{${sup}}` : ""}${arg(node, "e")}`;
    }
    case "d": {
      const props = child(node, "dPr");
      const begin = chr(props, "begChr", "(");
      const end = chr(props, "endChr", ")");
      const separator = chr(props, "sepChr", "|");
      const parts = elements(node)
        .filter((item) => item.name === "e")
        .map((item) => omml(item).trim());
      const left = begin === "" ? "." : begin === "{" ? "\\{" : begin;
      const right = end === "" ? "." : end === "}" ? "\\}" : end;
      return `\\left${left}${parts.join(separator)}\\right${right}`;
    }
    case "func":
      return `${arg(node, "fName")}(${arg(node, "e")})`;
    case "acc": {
      const accent = chr(child(node, "accPr"), "chr", "̂");
      return `${ACCENTS[accent] ?? "\\hat"}{${arg(node, "e")}}`;
    }
    case "bar":
      return `\\overline{${arg(node, "e")}}`;
    case "limLow":
      return `${arg(node, "e")}_{${arg(node, "lim")}}`;
    case "limUpp":
      return `${arg(node, "e")}^{${arg(node, "lim")}}`;
    case "groupChr":
      return `\\underbrace{${arg(node, "e")}}`;
    case "eqArr":
      return elements(node)
        .filter((item) => item.name === "e")
        .map((item) => omml(item).trim())
        .join(" \\\\ ");
    case "m": {
      const rows = elements(node)
        .filter((item) => item.name === "mr")
        .map((row) =>
          elements(row)
            .filter((item) => item.name === "e")
            .map((item) => omml(item).trim())
            .join(" & "),
        );
      return `\\begin{matrix}${rows.join(" \\\\ ")}\\end{matrix}`;
    }
    case "rPr":
    case "ctrlPr":
    case "oMathParaPr":
    case "argPr":
      return "";
    default:
      // Boxes, phantoms, borders, e, num, oMath...: their content.
      return omml(node);
  }
}

/** A whole equation (m:oMath or m:oMathPara) as one line, spaces tidied. */
export function equationText(node: XmlElement): string {
  return omml(node).replace(/\s+/g, " ").trim();
}
