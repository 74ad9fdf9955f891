import type { BackendRegistry, FormatBackend } from "../backend.ts";
import { type OfficeSource, officePool } from "../libreoffice/pool.ts";
import { DocumentLoadError, type DocumentModel } from "../model.ts";
import { zipBombReason } from "../sniff.ts";

export const DOCX = "application/vnd.openxmlformats-officedocument.wordprocessingml.document";
export const PPTX = "application/vnd.openxmlformats-officedocument.presentationml.presentation";
export const XLSX = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet";

interface Route {
  source: OfficeSource;
  /** The OOXML twin: its media type, extension and LibreOffice export filter. */
  twin: { mimeType: string; extension: string; filter: string };
  /** Used while no backend reads the twin: an export the engine reads (HTML for text and sheets, PDF for slides). */
  fallback: { mimeType: string; extension: string; filter: string };
}

const WRITER = {
  twin: { mimeType: DOCX, extension: "docx", filter: "MS Word 2007 XML" },
  fallback: { mimeType: "text/html", extension: "html", filter: "HTML (StarWriter)" },
};
const CALC = {
  twin: { mimeType: XLSX, extension: "xlsx", filter: "Calc MS Excel 2007 XML" },
  fallback: { mimeType: "text/html", extension: "html", filter: "HTML (StarCalc)" },
};
const IMPRESS = {
  twin: { mimeType: PPTX, extension: "pptx", filter: "Impress MS PowerPoint 2007 XML" },
  fallback: { mimeType: "application/pdf", extension: "pdf", filter: "impress_pdf_Export" },
};

/** Media types converted by LibreOffice, with what they become. */
export const OFFICE_ROUTES: Readonly<Record<string, Route>> = {
  "application/msword": { source: "doc", ...WRITER },
  "application/vnd.ms-word": { source: "doc", ...WRITER },
  "application/vnd.ms-excel": { source: "xls", ...CALC },
  "application/vnd.ms-powerpoint": { source: "ppt", ...IMPRESS },
  "application/vnd.apple.keynote": { source: "key", ...IMPRESS },
  "application/x-iwork-keynote-sffkey": { source: "key", ...IMPRESS },
  "application/vnd.oasis.opendocument.text": { source: "odt", ...WRITER },
  "application/vnd.oasis.opendocument.spreadsheet": { source: "ods", ...CALC },
  "application/vnd.oasis.opendocument.presentation": { source: "odp", ...IMPRESS },
  "application/rtf": { source: "rtf", ...WRITER },
  "text/rtf": { source: "rtf", ...WRITER },
};

/** What each source format starts with: LibreOffice would read any bytes as text, so the type is checked first. */
const SIGNATURE_NAMES: Record<OfficeSource, string> = {
  doc: "an OLE2 compound file",
  xls: "an OLE2 compound file",
  ppt: "an OLE2 compound file",
  pptx: "a zip archive",
  key: "a zip archive",
  odt: "a zip archive",
  ods: "a zip archive",
  odp: "a zip archive",
  rtf: "{\\rtf",
};

const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];

function hasSignature(bytes: Uint8Array, source: OfficeSource): boolean {
  const starts = (prefix: readonly number[]) => prefix.every((byte, i) => bytes[i] === byte);
  switch (source) {
    case "doc":
    case "xls":
    case "ppt":
      return starts(OLE2);
    case "rtf":
      return starts([0x7b, 0x5c, 0x72, 0x74, 0x66]);
    default:
      return starts([0x50, 0x4b, 0x03, 0x04]);
  }
}

/**
 * Converts `bytes` of an office media type with LibreOffice and reads the result with the registry's backend for
 * the OOXML twin (DOC → DOCX, XLS → XLSX, PPT and Keynote → PPTX, OpenDocument alike), or, while the registry has
 * none for it, for an export it does read (HTML, or PDF for slides). The model keeps the original media type.
 */
export async function convertAndLoad(
  registry: BackendRegistry,
  bytes: Uint8Array,
  mimeType: string,
  load: (
    backend: FormatBackend,
    bytes: Uint8Array,
    mimeType: string,
  ) => Promise<DocumentModel> | DocumentModel,
): Promise<DocumentModel> {
  const route = OFFICE_ROUTES[mimeType];
  if (!route) throw new DocumentLoadError(`LibreOffice does not convert ${mimeType}`);
  if (!hasSignature(bytes, route.source)) {
    throw new DocumentLoadError(
      `The file is not a ${route.source.toUpperCase()} document: it does not start as one (${SIGNATURE_NAMES[route.source]})`,
    );
  }
  const bomb = bytes[0] === 0x50 ? zipBombReason(bytes) : null;
  if (bomb) throw new DocumentLoadError(`The ${route.source.toUpperCase()} archive is refused: ${bomb}`);
  const twinBackend = registry.get(route.twin.mimeType);
  const target = twinBackend ? route.twin : route.fallback;
  const backend = twinBackend ?? registry.get(target.mimeType);
  if (!backend)
    throw new DocumentLoadError(`No backend reads ${target.mimeType}, the conversion of ${mimeType}`);
  const converted = await officePool().convert(bytes, route.source, target.extension, target.filter);
  const doc = await load(backend, converted, target.mimeType);
  return { ...doc, mimeType, backend: `libreoffice+${doc.backend}` };
}

/**
 * DOC, XLS, PPT, Keynote and OpenDocument files through the LibreOffice pool (libreoffice/pool.ts) into a format
 * the registry reads. Made for one registry, whose backends read the converted bytes.
 */
export function officeConvertBackend(registry: BackendRegistry): FormatBackend {
  return {
    name: "libreoffice",
    mimeTypes: Object.keys(OFFICE_ROUTES).filter((type) => OFFICE_ROUTES[type].source !== "rtf"),
    async load(input): Promise<DocumentModel> {
      if (input.bytes === undefined) {
        throw new DocumentLoadError(`A ${input.mimeType} document must be given as a file, not as text`);
      }
      return convertAndLoad(
        registry,
        input.bytes,
        input.mimeType.split(";")[0].trim().toLowerCase(),
        (backend, bytes, mimeType) => backend.load({ ...input, bytes, text: undefined, mimeType }),
      );
    },
  };
}
