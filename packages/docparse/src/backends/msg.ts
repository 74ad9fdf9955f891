import type { BackendInput, BackendRegistry, FormatBackend } from "../backend.ts";
import { type CfbEntry, CompoundFile } from "../mail/cfb.ts";
import { MessageWriter } from "../mail/message.ts";
import { decodeCharset, decodeWords, parseHeaders } from "../mail/mime.ts";
import { DocumentLoadError, type DocumentModel } from "../model.ts";
import { SectionedDocument } from "../sections.ts";
import { OUTLOOK_MSG } from "../sniff.ts";
import { decompressRtf } from "./rtf-compressed.ts";

/** Outlook items attached to Outlook items read at most this deep. */
const MAX_MESSAGE_DEPTH = 8;

/** MAPI property ids used here. */
const PROP = {
  subject: 0x0037,
  transportHeaders: 0x007d,
  senderName: 0x0c1a,
  senderEmail: 0x0c1f,
  displayTo: 0x0e04,
  displayCc: 0x0e03,
  body: 0x1000,
  rtfCompressed: 0x1009,
  html: 0x1013,
  submitTime: 0x0039,
  deliveryTime: 0x0e06,
  attachData: 0x3701,
  attachFilename: 0x3704,
  attachLongFilename: 0x3707,
  attachMime: 0x370e,
  displayName: 0x3001,
  attachContentId: 0x3712,
  attachFlags: 0x3714,
} as const;

/** One message's property streams by id, with their type. */
class MessageProps {
  readonly #file: CompoundFile;
  readonly #streams = new Map<number, { type: number; entry: CfbEntry }>();
  readonly storage: CfbEntry;
  /** Fixed-size values (times) of __properties_version1.0, by id. */
  readonly #fixed = new Map<number, DataView>();

  constructor(file: CompoundFile, storage: CfbEntry, headerSize: number) {
    this.#file = file;
    this.storage = storage;
    for (const child of storage.children) {
      const match = /^__substg1\.0_([0-9A-Fa-f]{4})([0-9A-Fa-f]{4})$/.exec(child.name);
      if (match)
        this.#streams.set(Number.parseInt(match[1], 16), {
          type: Number.parseInt(match[2], 16),
          entry: child,
        });
      if (child.name === "__properties_version1.0") {
        const data = file.read(child);
        for (let at = headerSize; at + 16 <= data.length; at += 16) {
          const view = new DataView(data.buffer, data.byteOffset + at, 16);
          this.#fixed.set(view.getUint32(0, true) >>> 16, view);
        }
      }
    }
  }

  string(id: number): string | null {
    const stream = this.#streams.get(id);
    if (!stream) return null;
    const bytes = this.#file.read(stream.entry);
    if (stream.type === 0x001f) return Buffer.from(bytes).toString("utf16le").replace(/\0+$/, "");
    return decodeCharset(bytes, undefined).replace(/\0+$/, "");
  }

  binary(id: number): Uint8Array | null {
    const stream = this.#streams.get(id);
    return stream && stream.entry.type === 2 ? this.#file.read(stream.entry) : null;
  }

  /** A PT_SYSTIME property as an ISO 8601 time, else null. */
  time(id: number): string | null {
    const view = this.#fixed.get(id);
    if (!view || (view.getUint32(0, true) & 0xffff) !== 0x0040) return null;
    const filetime = view.getBigUint64(8, true);
    const ms = Number(filetime / 10_000n) - 11_644_473_600_000;
    return ms > 0 && ms < 8.64e15 ? new Date(ms).toISOString() : null;
  }

  /** An embedded message's storage (an attached Outlook item), else undefined. */
  embedded(): CfbEntry | undefined {
    return this.storage.children.find((c) => c.type === 1 && c.name.toUpperCase() === "__SUBSTG1.0_3701000D");
  }
}

async function writeMessage(
  writer: MessageWriter,
  file: CompoundFile,
  props: MessageProps,
  level: number,
  depth: number,
): Promise<void> {
  const senderName = props.string(PROP.senderName);
  const senderEmail = props.string(PROP.senderEmail);
  const from =
    senderName && senderEmail && senderName !== senderEmail && senderEmail.includes("@")
      ? `${senderName} <${senderEmail}>`
      : (senderName ?? senderEmail);
  // The internet headers the message came with fill what the properties leave out.
  const transport = parseHeaders(props.string(PROP.transportHeaders) ?? "");
  const fromHeader = (name: string) => {
    const value = transport.get(name)?.[0];
    return value ? decodeWords(value) : null;
  };
  writer.header(
    {
      subject: props.string(PROP.subject) ?? fromHeader("subject"),
      from: from ?? fromHeader("from"),
      to: props.string(PROP.displayTo) ?? fromHeader("to"),
      cc: props.string(PROP.displayCc) ?? fromHeader("cc"),
      date: props.time(PROP.submitTime) ?? props.time(PROP.deliveryTime) ?? fromHeader("date"),
    },
    level,
  );
  const htmlBytes = props.binary(PROP.html);
  const html = htmlBytes
    ? decodeCharset(
        htmlBytes,
        /charset=["']?([\w-]+)/i.exec(Buffer.from(htmlBytes.subarray(0, 2048)).toString("latin1"))?.[1],
      )
    : props.string(PROP.html);
  const body = props.string(PROP.body);
  if (html?.trim()) await writer.html(html);
  else if (body?.trim()) await writer.text(body);
  else {
    const rtf = props.binary(PROP.rtfCompressed);
    if (rtf) await rtfBody(writer, rtf, level);
  }
  for (const storage of props.storage.children) {
    if (storage.type !== 1 || !/^__attach_version1\.0_#/i.test(storage.name)) continue;
    const attach = new MessageProps(file, storage, 8);
    const name =
      attach.string(PROP.attachLongFilename) ??
      attach.string(PROP.attachFilename) ??
      attach.string(PROP.displayName);
    const embedded = attach.embedded();
    if (embedded) {
      if (depth >= MAX_MESSAGE_DEPTH) {
        writer.out.warnings.push(`An Outlook item nested more than ${MAX_MESSAGE_DEPTH} deep was not read`);
        continue;
      }
      await writeMessage(
        writer,
        file,
        new MessageProps(file, embedded, 24),
        Math.min(level + 1, 6),
        depth + 1,
      );
      continue;
    }
    const data = attach.binary(PROP.attachData);
    if (!data) continue;
    const mime = attach.string(PROP.attachMime);
    // Pictures shown in the body (referenced by content id) are figures, not attachments.
    if (mime?.startsWith("image/") && attach.string(PROP.attachContentId) && html?.includes("cid:")) {
      writer.figure(name, `cid:${attach.string(PROP.attachContentId)}`);
      continue;
    }
    await writer.attachment({ name, declared: mime }, data, Math.min(level + 1, 6));
  }
}

/** A body kept only as compressed RTF: decompressed and read by the registry's RTF backend. */
async function rtfBody(writer: MessageWriter, compressed: Uint8Array, level: number): Promise<void> {
  let rtf: Uint8Array;
  try {
    rtf = decompressRtf(compressed);
  } catch (error) {
    if (!(error instanceof DocumentLoadError)) throw error;
    writer.out.warnings.push(`The message's RTF body was not read: ${error.message}`);
    return;
  }
  const backend = writer.registry.get("application/rtf");
  if (!backend) return;
  try {
    const doc = await backend.load({
      ...writer.input,
      bytes: rtf,
      text: undefined,
      mimeType: "application/rtf",
    });
    writer.out.append(doc, { samePage: true, levelShift: level });
  } catch (error) {
    if (!(error instanceof DocumentLoadError)) throw error;
    writer.out.warnings.push(`The message's RTF body was not read: ${error.message}`);
  }
}

async function loadMsg(registry: BackendRegistry, input: BackendInput): Promise<DocumentModel> {
  if (!input.bytes || input.bytes.length === 0) throw new DocumentLoadError("The Outlook message is empty");
  const file = new CompoundFile(input.bytes, "Outlook message");
  const props = new MessageProps(file, file.root, 32);
  if (!file.root.children.some((c) => c.name === "__properties_version1.0")) {
    throw new DocumentLoadError("The file is not an Outlook message: it has no message properties");
  }
  const out = new SectionedDocument();
  await writeMessage(new MessageWriter(out, registry, input), file, props, 1, 0);
  return out.model(input.mimeType, "msg");
}

/**
 * Outlook messages (`.msg`, a compound file of MAPI properties): the same as an email: subject, sender, To, Cc,
 * date, the body (HTML, else text, else the compressed RTF through the RTF backend), and each attachment parsed
 * by its own backend as a section; attached Outlook items are read as nested messages.
 */
export function msgBackend(registry: BackendRegistry): FormatBackend {
  return {
    name: "msg",
    mimeTypes: [OUTLOOK_MSG, "application/x-msg"],
    load: (input) => loadMsg(registry, input),
  };
}
