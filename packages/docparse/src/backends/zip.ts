import { ZipArchive } from "../archive/zip-archive.ts";
import type { BackendInput, BackendRegistry, FormatBackend } from "../backend.ts";
import { DocumentLoadError, type DocumentModel } from "../model.ts";
import { loadEmbedded, SectionedDocument } from "../sections.ts";
import { ZIP } from "../sniff.ts";

/** Files an archiver adds that are not content: macOS resource forks, Finder and Explorer metadata. */
const NOT_CONTENT = /(^|\/)(__MACOSX\/|\.DS_Store$|Thumbs\.db$|desktop\.ini$)/i;

async function loadZip(registry: BackendRegistry, input: BackendInput): Promise<DocumentModel> {
  if (!input.bytes || input.bytes.length === 0) throw new DocumentLoadError("The archive is empty");
  const archive = new ZipArchive(input.bytes, "archive");
  const files = archive.members.filter((m) => !m.directory && !NOT_CONTENT.test(m.name));
  if (files.length === 0) throw new DocumentLoadError("The archive holds no files");
  if (files.every((m) => m.encrypted)) {
    throw new DocumentLoadError("The archive is password-protected: its files are encrypted");
  }
  const out = new SectionedDocument();
  let read = 0;
  for (const member of files) {
    let bytes: Uint8Array;
    try {
      bytes = archive.read(member);
    } catch (error) {
      if (!(error instanceof DocumentLoadError)) throw error;
      out.warnings.push(error.message);
      continue;
    }
    const doc = await loadEmbedded(
      registry,
      input,
      { bytes, name: member.name, declared: null },
      "archive member",
      out.warnings,
    );
    if (doc) {
      out.append(doc, { levelShift: 1, heading: { text: member.name, level: 1 } });
      read++;
    } else out.heading(member.name, 1);
  }
  if (read === 0) {
    throw new DocumentLoadError(
      `None of the archive's ${files.length} files could be read: ${out.warnings.slice(0, 3).join("; ")}`,
    );
  }
  return out.model(input.mimeType, "zip");
}

/**
 * ZIP archives: each member parsed by the backend of its type, one section per member (its name as a heading,
 * its pages after the previous member's). Limits on entries, sizes, expansion ratio (zip bombs are refused
 * with a reason) and nesting (archives in archives); encrypted or unreadable members are warnings.
 */
export function zipBackend(registry: BackendRegistry): FormatBackend {
  return {
    name: "zip",
    mimeTypes: [ZIP, "application/x-zip-compressed", "application/x-zip"],
    load: (input) => loadZip(registry, input),
  };
}
