import { strToU8, zipSync } from "fflate";

/** Builds small OOXML packages for tests: parts by name, zipped with fflate. */
export function zipParts(parts: Record<string, string | Uint8Array>): Uint8Array {
  const files: Record<string, Uint8Array> = {};
  for (const [name, content] of Object.entries(parts)) {
    files[name] = typeof content === "string" ? strToU8(content) : content;
  }
  return zipSync(files);
}

const W =
  'xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

function rootRels(target: string): string {
  return `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="${target}"/></Relationships>`;
}

/** A DOCX whose body is the given WordprocessingML (paragraphs, tables), with optional extra parts. */
export function docx(body: string, extra: Record<string, string> = {}): Uint8Array {
  return zipParts({
    "_rels/.rels": rootRels("word/document.xml"),
    "word/document.xml": `<?xml version="1.0"?><w:document ${W}><w:body>${body}</w:body></w:document>`,
    ...extra,
  });
}

const S =
  'xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

/** An XLSX with the given sheets (name, sheetData XML and extra worksheet XML after it, state) and styles part. */
export function xlsx(
  sheets: { name: string; data: string; after?: string; state?: string }[],
  styles = "",
  sharedStrings: string[] = [],
): Uint8Array {
  const parts: Record<string, string> = {
    "_rels/.rels": rootRels("xl/workbook.xml"),
    "xl/workbook.xml": `<?xml version="1.0"?><workbook ${S}><sheets>${sheets
      .map(
        (sheet, i) =>
          `<sheet name="${sheet.name}" sheetId="${i + 1}" r:id="rId${i + 1}"${sheet.state ? ` state="${sheet.state}"` : ""}/>`,
      )
      .join("")}</sheets></workbook>`,
    "xl/_rels/workbook.xml.rels": `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${sheets
      .map(
        (_, i) =>
          `<Relationship Id="rId${i + 1}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet${i + 1}.xml"/>`,
      )
      .join(
        "",
      )}<Relationship Id="rS" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/><Relationship Id="rT" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`,
    "xl/styles.xml": `<?xml version="1.0"?><styleSheet ${S}>${styles}</styleSheet>`,
    "xl/sharedStrings.xml": `<?xml version="1.0"?><sst ${S}>${sharedStrings.map((text) => `<si><t>${text}</t></si>`).join("")}</sst>`,
  };
  sheets.forEach((sheet, i) => {
    parts[`xl/worksheets/sheet${i + 1}.xml`] =
      `<?xml version="1.0"?><worksheet ${S}><sheetData>${sheet.data}</sheetData>${sheet.after ?? ""}</worksheet>`;
  });
  return zipParts(parts);
}

const P =
  'xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"';

function relsXml(rels: { id: string; type: string; target: string }[]): string {
  return `<?xml version="1.0"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">${rels
    .map(
      (rel) =>
        `<Relationship Id="${rel.id}" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/${rel.type}" Target="${rel.target}"/>`,
    )
    .join("")}</Relationships>`;
}

/**
 * A PPTX of 16:9 slides: each slide's shape tree XML, its `<p:sld>` attributes, and extra relationships of the
 * slide (id, type, target relative to `ppt/slides/`) with the parts they point to.
 */
export function pptx(
  slides: { tree: string; attrs?: string; rels?: { id: string; type: string; target: string }[] }[],
  extra: Record<string, string> = {},
): Uint8Array {
  const parts: Record<string, string> = {
    "_rels/.rels": rootRels("ppt/presentation.xml"),
    "ppt/presentation.xml": `<?xml version="1.0"?><p:presentation ${P}><p:sldIdLst>${slides
      .map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 1}"/>`)
      .join("")}</p:sldIdLst><p:sldSz cx="12192000" cy="6858000"/></p:presentation>`,
    "ppt/_rels/presentation.xml.rels": relsXml(
      slides.map((_, i) => ({ id: `rId${i + 1}`, type: "slide", target: `slides/slide${i + 1}.xml` })),
    ),
    ...extra,
  };
  slides.forEach((slide, i) => {
    parts[`ppt/slides/slide${i + 1}.xml`] =
      `<?xml version="1.0"?><p:sld ${P}${slide.attrs ? ` ${slide.attrs}` : ""}><p:cSld><p:spTree>${slide.tree}</p:spTree></p:cSld></p:sld>`;
    parts[`ppt/slides/_rels/slide${i + 1}.xml.rels`] = relsXml(slide.rels ?? []);
  });
  return zipParts(parts);
}
