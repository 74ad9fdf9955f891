import type { BackendInput, BackendRegistry, FormatBackend } from "../backend.ts";
import { MessageWriter } from "../mail/message.ts";
import {
  bodyBytes,
  bodyText,
  decodeCharset,
  fileName,
  header,
  isAttachment,
  type MimeEntity,
  parseEntity,
} from "../mail/mime.ts";
import { DocumentLoadError, type DocumentModel } from "../model.ts";
import { SectionedDocument } from "../sections.ts";
import { EMAIL } from "../sniff.ts";
import { describeSigner, readSignedData } from "./pkcs7.ts";

/** Messages inside messages (forwarded, digests) read at most this deep. */
const MAX_MESSAGE_DEPTH = 8;

/** Fields of which an email has at least one; a file with none is not an email. */
const MESSAGE_FIELDS = [
  "from",
  "to",
  "subject",
  "date",
  "message-id",
  "mime-version",
  "received",
  "content-type",
];

class EncryptedError extends DocumentLoadError {}

function isEnveloped(entity: MimeEntity): boolean {
  return (
    (entity.type === "application/pkcs7-mime" || entity.type === "application/x-pkcs7-mime") &&
    /enveloped|authenveloped/i.test(entity.params["smime-type"] ?? "")
  );
}

/** Reads an entity's content into the document: body parts in place, other parts as attachments. */
class EmailReader {
  readonly writer: MessageWriter;
  readonly signers: string[] = [];

  constructor(writer: MessageWriter) {
    this.writer = writer;
  }

  get out() {
    return this.writer.out;
  }

  async message(entity: MimeEntity, level: number, depth: number): Promise<void> {
    this.writer.header(
      {
        subject: header(entity, "subject") ?? null,
        from: header(entity, "from") ?? null,
        to: header(entity, "to") ?? null,
        cc: header(entity, "cc") ?? null,
        date: header(entity, "date") ?? null,
      },
      level,
    );
    await this.part(entity, level, depth, false);
  }

  async part(entity: MimeEntity, level: number, depth: number, inAttachment: boolean): Promise<void> {
    const type = entity.type;
    if (type === "multipart/encrypted" || isEnveloped(entity)) {
      throw new EncryptedError(
        `The email is encrypted (${type === "multipart/encrypted" ? "PGP/MIME" : "S/MIME"}): its content cannot be read without the recipient's private key`,
      );
    }
    if (type.startsWith("multipart/")) return this.multipart(entity, level, depth);
    if (type === "message/rfc822" || type === "message/global") {
      if (depth >= MAX_MESSAGE_DEPTH) {
        this.out.warnings.push(`A message nested more than ${MAX_MESSAGE_DEPTH} deep was not read`);
        return;
      }
      const inner = parseEntity(bodyBytes(entity), "text/plain");
      return this.message(inner, Math.min(level + 1, 6), depth + 1);
    }
    if (type === "application/pkcs7-mime" || type === "application/x-pkcs7-mime")
      return this.opaqueSigned(entity, level, depth);
    if (!inAttachment && !isAttachment(entity)) {
      if (type === "text/html") return this.writer.html(bodyText(entity));
      if (type === "text/plain" || type === "text/enriched")
        return this.writer.text(pgpClearText(bodyText(entity), this));
      if (type.startsWith("image/")) {
        this.writer.figure(fileName(entity), contentId(entity));
        return;
      }
    }
    await this.writer.attachment(
      { name: fileName(entity), declared: type },
      bodyBytes(entity),
      Math.min(level + 1, 6),
    );
  }

  async multipart(entity: MimeEntity, level: number, depth: number): Promise<void> {
    const parts = entity.parts;
    if (parts.length === 0) {
      // A multipart body with no boundary found: its text is the body.
      const text = decodeCharset(entity.raw, entity.params.charset);
      if (text.trim()) await this.writer.text(text);
      return;
    }
    switch (entity.type) {
      case "multipart/alternative": {
        const html = parts.findLast((part) => part.type === "text/html");
        const plain = parts.findLast((part) => part.type === "text/plain");
        const nested = parts.findLast((part) => part.type.startsWith("multipart/"));
        // A richer alternative (multipart/related holding the HTML) comes last; else HTML, else text.
        const chosen = nested ?? html ?? plain ?? parts[parts.length - 1];
        return this.part(chosen, level, depth, false);
      }
      case "multipart/related": {
        const start = entity.params.start;
        const root = parts.find((part) => start && part.headers.get("content-id")?.[0] === start) ?? parts[0];
        await this.part(root, level, depth, false);
        for (const part of parts) {
          if (part === root) continue;
          if (part.type.startsWith("image/")) this.writer.figure(fileName(part), contentId(part));
          else await this.part(part, level, depth, false);
        }
        return;
      }
      case "multipart/signed": {
        const [content, signature] = parts;
        if (signature) this.noteSignature(signature);
        if (content) await this.part(content, level, depth, false);
        return;
      }
      case "multipart/report": {
        // A delivery report: the human-readable part, the status, and the returned message.
        for (const part of parts) await this.part(part, level, depth, false);
        return;
      }
      default:
        for (const part of parts) await this.part(part, level, depth, false);
    }
  }

  /** A detached signature: who signed, as far as the signature says; the signed content is read as it is. */
  noteSignature(signature: MimeEntity): void {
    if (/pgp-signature/.test(signature.type)) {
      this.out.warnings.push("The email is signed with PGP; the signature is not checked");
      return;
    }
    if (/pkcs7-signature/.test(signature.type)) {
      try {
        const signed = readSignedData(bodyBytes(signature));
        for (const signer of signed.signers) this.out.warnings.push(describeSigner(signer));
        if (signed.signers.length > 0) return;
      } catch (error) {
        if (!(error instanceof DocumentLoadError)) throw error;
      }
      this.out.warnings.push("The email is signed (S/MIME); the signature could not be read");
    }
  }

  /** S/MIME opaque signing: the signed MIME entity is inside the PKCS#7 structure. */
  async opaqueSigned(entity: MimeEntity, level: number, depth: number): Promise<void> {
    let signed: ReturnType<typeof readSignedData>;
    try {
      signed = readSignedData(bodyBytes(entity));
    } catch (error) {
      if (!(error instanceof DocumentLoadError)) throw error;
      throw new EncryptedError(`The email's S/MIME content cannot be read: ${error.message}`);
    }
    for (const signer of signed.signers) this.out.warnings.push(describeSigner(signer));
    if (!signed.content) return;
    await this.part(parseEntity(signed.content), level, depth + 1, false);
  }
}

function contentId(entity: MimeEntity): string | null {
  const id = entity.headers.get("content-id")?.[0];
  return id ? `cid:${id.replace(/^<|>$/g, "")}` : null;
}

/** The text of a PGP clear-signed or inline-encrypted body: armour lines dropped; encrypted text is refused. */
function pgpClearText(text: string, reader: EmailReader): string {
  if (
    /^-----BEGIN PGP MESSAGE-----$/m.test(text) &&
    !/\S/.test(text.split("-----BEGIN PGP MESSAGE-----")[0])
  ) {
    throw new EncryptedError(
      "The email is encrypted (inline PGP): its content cannot be read without the recipient's private key",
    );
  }
  const signed =
    /-----BEGIN PGP SIGNED MESSAGE-----\r?\n(?:Hash:[^\n]*\n)*\r?\n?([\s\S]*?)-----BEGIN PGP SIGNATURE-----[\s\S]*?-----END PGP SIGNATURE-----/.exec(
      text,
    );
  if (!signed) return text;
  reader.out.warnings.push("The email is signed with PGP; the signature is not checked");
  return text.replace(signed[0], signed[1].replace(/^- /gm, ""));
}

/**
 * Messages in a mailbox (mbox: each starts with a `From ` line after a blank line; the line is not a header),
 * else the one message.
 */
function mboxMessages(bytes: Uint8Array): Uint8Array[] {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  if (!text.startsWith("From ")) return [bytes];
  const starts = [0];
  for (const match of text.matchAll(/\r?\n\r?\nFrom [^\n]*\n/g))
    starts.push(match.index + match[0].indexOf("From "));
  return starts.map((start, i) => {
    const end = starts[i + 1] ?? bytes.length;
    const line = text.indexOf("\n", start);
    // Body lines that began with `From ` were escaped as `>From `.
    const message = text.slice(line < 0 || line > end ? end : line + 1, end).replace(/^>(>*From )/gm, "$1");
    return new Uint8Array(Buffer.from(message, "latin1"));
  });
}

async function loadEmail(registry: BackendRegistry, input: BackendInput): Promise<DocumentModel> {
  const bytes = input.bytes ?? (input.text !== undefined ? new TextEncoder().encode(input.text) : undefined);
  if (!bytes || bytes.length === 0) throw new DocumentLoadError("The email is empty");
  const messages = mboxMessages(bytes);
  const entities = messages.map((message) => parseEntity(message));
  if (!MESSAGE_FIELDS.some((name) => entities[0].headers.has(name))) {
    throw new DocumentLoadError(
      "The file is not an email: it does not start with header fields (From, To, Subject...)",
    );
  }
  const out = new SectionedDocument();
  const reader = new EmailReader(new MessageWriter(out, registry, input));
  for (const [index, entity] of entities.entries()) {
    // In a mailbox, each message after the first starts a page.
    if (index > 0) out.newPage();
    await reader.message(entity, 1, 0);
  }
  return out.model(input.mimeType, "email");
}

/**
 * Email (RFC 822 / MIME, `.eml`): the header block and the body (HTML preferred over text in
 * multipart/alternative), transfer encodings, charsets and RFC 2047 words decoded; inline images as figures;
 * attachments and forwarded or digest messages as sections. Signed mail is read (the signer named in the
 * warnings); encrypted mail is a DocumentLoadError saying so.
 */
export function emailBackend(registry: BackendRegistry): FormatBackend {
  return {
    name: "email",
    mimeTypes: [EMAIL, "message/global", "application/x-eml"],
    load: (input) => loadEmail(registry, input),
  };
}
