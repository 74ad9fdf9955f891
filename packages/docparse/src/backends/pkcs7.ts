import { createHash, verify, X509Certificate } from "node:crypto";
import type { BackendInput, BackendRegistry, FormatBackend } from "../backend.ts";
import { DocumentLoadError, type DocumentModel, type DocumentSigner } from "../model.ts";
import { children, content, integerHex, octets, oid, readTlv, type Tlv, time } from "../pkcs7/der.ts";
import { sniffMimeType } from "../sniff.ts";

/**
 * PKCS#7 / CMS SignedData (`.p7m`, S/MIME): the DER (or BER, PEM, base64 S/MIME) container is read, its
 * encapsulated content unwrapped (an S/MIME MIME entity is decoded too) and parsed with the registry's backend
 * for its type (told by its MIME header or its bytes). The signers (subject, common name, issuer, serial,
 * signing time) are kept on the model (`signers`) and said in a warning. Each signature is checked against its
 * certificate when the container carries it (RSA PKCS#1 v1.5 and ECDSA with SHA-1/2): `verified` says whether it
 * held; the certificate chain and its trust are not checked.
 */

const OID = {
  data: "1.2.840.113549.1.7.1",
  signedData: "1.2.840.113549.1.7.2",
  messageDigest: "1.2.840.113549.1.9.4",
  signingTime: "1.2.840.113549.1.9.5",
} as const;

const HASHES: Record<string, string> = {
  "1.3.14.3.2.26": "sha1",
  "2.16.840.1.101.3.4.2.1": "sha256",
  "2.16.840.1.101.3.4.2.2": "sha384",
  "2.16.840.1.101.3.4.2.3": "sha512",
  "2.16.840.1.101.3.4.2.4": "sha224",
};

const PKCS7_TYPES = ["application/pkcs7-mime", "application/x-pkcs7-mime", "application/pkcs7-signature"];

/** Containers inside containers, at most. */
const MAX_NESTING = 3;

/** The DER bytes of the input: DER as given, or the base64 of PEM armour or an S/MIME entity. */
function derBytes(input: BackendInput): Uint8Array {
  if (input.bytes && input.bytes[0] === 0x30) return input.bytes;
  const text =
    input.text ??
    (input.bytes
      ? Buffer.from(input.bytes.buffer, input.bytes.byteOffset, input.bytes.byteLength).toString("latin1")
      : "");
  let body = text;
  const pem = /-----BEGIN [A-Z0-9 ]+-----([\s\S]*?)-----END [A-Z0-9 ]+-----/.exec(text);
  if (pem) body = pem[1];
  else {
    const entity = splitMimeEntity(text);
    if (entity) body = entity.body;
  }
  const compact = body.replace(/\s+/g, "");
  if (compact === "" || !/^[A-Za-z0-9+/]+=*$/.test(compact)) {
    throw new DocumentLoadError("The file is not PKCS#7: neither DER nor base64 (PEM or S/MIME)");
  }
  const der = new Uint8Array(Buffer.from(compact, "base64"));
  if (der[0] !== 0x30) throw new DocumentLoadError("The file is not PKCS#7: its base64 does not hold DER");
  return der;
}

interface MimeEntity {
  headers: Map<string, string>;
  body: string;
}

/** A MIME entity's headers (lower-case names, folded lines joined) and body, or null when it has no headers. */
function splitMimeEntity(text: string): MimeEntity | null {
  const match = /\r?\n\r?\n/.exec(text);
  if (!match || !/^[A-Za-z][\w-]*:/.test(text)) return null;
  const headerText = text.slice(0, match.index).replace(/\r?\n[ \t]+/g, " ");
  const headers = new Map<string, string>();
  for (const line of headerText.split(/\r?\n/)) {
    const colon = line.indexOf(":");
    if (colon <= 0) return null;
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body: text.slice(match.index + match[0].length) };
}

function decodeQuotedPrintable(text: string): Uint8Array {
  const bytes: number[] = [];
  const joined = text.replace(/=\r?\n/g, "");
  for (let i = 0; i < joined.length; i++) {
    if (joined[i] === "=" && /^[0-9A-Fa-f]{2}$/.test(joined.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(joined.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(joined.charCodeAt(i) & 0xff);
  }
  return new Uint8Array(bytes);
}

/**
 * The document inside an S/MIME entity: its type from Content-Type, its bytes decoded from the transfer encoding;
 * of a multipart entity, the first part that is not a signature. Bytes without MIME headers are returned as is.
 */
function unwrapMime(bytes: Uint8Array, depth = 0): { mimeType: string | null; bytes: Uint8Array } {
  const head = Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, 4096)).toString("latin1");
  if (depth > MAX_NESTING || !/^(content-type|mime-version|content-transfer-encoding):/i.test(head)) {
    return { mimeType: null, bytes };
  }
  const entity = splitMimeEntity(
    Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1"),
  );
  if (!entity) return { mimeType: null, bytes };
  const contentType = entity.headers.get("content-type") ?? "text/plain";
  const type = contentType.split(";")[0].trim().toLowerCase();
  if (type.startsWith("multipart/")) {
    const boundary = /boundary="?([^";]+)"?/i.exec(contentType)?.[1];
    if (!boundary) return { mimeType: null, bytes };
    const parts = entity.body.split(`--${boundary}`).slice(1);
    for (const part of parts) {
      if (part.startsWith("--")) break;
      const inner = new Uint8Array(Buffer.from(part.replace(/^\r?\n/, ""), "latin1"));
      const unwrapped = unwrapMime(inner, depth + 1);
      if (unwrapped.mimeType && PKCS7_TYPES.includes(unwrapped.mimeType) && parts.length > 1) continue;
      return unwrapped;
    }
    return { mimeType: null, bytes };
  }
  const encoding = (entity.headers.get("content-transfer-encoding") ?? "").toLowerCase();
  const body =
    encoding === "base64"
      ? new Uint8Array(Buffer.from(entity.body.replace(/\s+/g, ""), "base64"))
      : encoding === "quoted-printable"
        ? decodeQuotedPrintable(entity.body)
        : new Uint8Array(Buffer.from(entity.body, "latin1"));
  return { mimeType: type, bytes: body };
}

interface Signed {
  content: Uint8Array | null;
  signers: DocumentSigner[];
}

function commonName(dn: string | null): string | null {
  return dn ? (/(?:^|\n)CN=([^\n]*)/.exec(dn)?.[1] ?? null) : null;
}

/** Reads a ContentInfo holding SignedData: the encapsulated content and the signers. */
export function readSignedData(der: Uint8Array): Signed {
  const info = readTlv(der, 0);
  const [typeTlv, wrapped] = children(der, info);
  if (!typeTlv || oid(der, typeTlv) !== OID.signedData || !wrapped) {
    throw new DocumentLoadError(
      "The PKCS#7 data is not SignedData (enveloped or encrypted content cannot be read)",
    );
  }
  const signedData = children(der, wrapped)[0];
  const parts = children(der, signedData);
  const encap = parts[2];
  const encapParts = encap ? children(der, encap) : [];
  let documentBytes: Uint8Array | null = null;
  if (encapParts[1]) {
    const explicit = children(der, encapParts[1])[0];
    if (explicit)
      documentBytes =
        explicit.tag === 0x04 || explicit.tag === 0x24 ? octets(der, explicit) : content(der, explicit);
  }
  const certificates: X509Certificate[] = [];
  let signerSet: Tlv | null = null;
  for (const part of parts.slice(3)) {
    if (part.tag === 0xa0) {
      for (const cert of children(der, part)) {
        try {
          certificates.push(new X509Certificate(der.subarray(cert.start, cert.end)));
        } catch {
          // Not an X.509 certificate (an attribute certificate...): left out.
        }
      }
    } else if (part.tag === 0x31) signerSet = part;
  }
  const signers: DocumentSigner[] = [];
  for (const signer of signerSet ? children(der, signerSet) : []) {
    const fields = children(der, signer);
    const sid = fields[1];
    let serial = "";
    if (sid?.tag === 0x30) {
      const [, serialTlv] = children(der, sid);
      if (serialTlv) serial = integerHex(der, serialTlv);
    }
    // Serials compare as numbers: Node writes a leading zero nibble (`0A…`) that the DER integer may not have.
    const key = (hex: string) => hex.toUpperCase().replace(/^0+(?=.)/, "");
    const certificate = certificates.find((cert) => key(cert.serialNumber) === key(serial)) ?? null;
    const digestOid = fields[2] ? oid(der, children(der, fields[2])[0]) : "";
    let index = 3;
    let signedAttrs: Tlv | null = null;
    if (fields[index]?.tag === 0xa0) signedAttrs = fields[index++];
    index++; // signatureAlgorithm
    const signature = fields[index];
    let signingTime: string | null = null;
    let messageDigest: Uint8Array | null = null;
    for (const attr of signedAttrs ? children(der, signedAttrs) : []) {
      const [attrOid, values] = children(der, attr);
      const kind = attrOid ? oid(der, attrOid) : "";
      const value = values ? children(der, values)[0] : undefined;
      if (!value) continue;
      if (kind === OID.signingTime) signingTime = time(der, value);
      if (kind === OID.messageDigest) messageDigest = content(der, value);
    }
    signers.push({
      subject: certificate?.subject.replace(/\n/g, ", ") ?? null,
      commonName: commonName(certificate?.subject ?? null),
      issuer: certificate?.issuer.replace(/\n/g, ", ") ?? null,
      serialNumber: serial,
      signingTime,
      verified: checkSignature(der, {
        certificate,
        digestOid,
        signedAttrs,
        signature,
        messageDigest,
        documentBytes,
      }),
    });
  }
  return { content: documentBytes, signers };
}

/** Whether a signature holds against its certificate; null when it cannot be told (no certificate, an algorithm not handled). */
function checkSignature(
  der: Uint8Array,
  s: {
    certificate: X509Certificate | null;
    digestOid: string;
    signedAttrs: Tlv | null;
    signature: Tlv | undefined;
    messageDigest: Uint8Array | null;
    documentBytes: Uint8Array | null;
  },
): boolean | null {
  const hash = HASHES[s.digestOid];
  if (!s.certificate || !hash || !s.signature || s.documentBytes === null) return null;
  try {
    let signedBytes: Uint8Array = s.documentBytes;
    if (s.signedAttrs) {
      const digest = createHash(hash).update(s.documentBytes).digest();
      if (!s.messageDigest || !digest.equals(Buffer.from(s.messageDigest))) return false;
      // The attributes are signed as a SET (tag 0x31), not with their [0] tag.
      const attrs = Buffer.from(der.subarray(s.signedAttrs.start, s.signedAttrs.end));
      attrs[0] = 0x31;
      signedBytes = attrs;
    }
    return verify(hash, signedBytes, s.certificate.publicKey, content(der, s.signature));
  } catch {
    return null;
  }
}

/** A signer as one line of the result's warnings, where clients see it. */
export function describeSigner(signer: DocumentSigner): string {
  const who = signer.commonName ?? signer.subject ?? `serial ${signer.serialNumber}`;
  const issuer = commonName(signer.issuer?.replace(/, /g, "\n") ?? null) ?? signer.issuer;
  const details = [
    issuer ? `issuer ${issuer}` : null,
    `serial ${signer.serialNumber}`,
    signer.signingTime ? `signed at ${signer.signingTime}` : null,
  ]
    .filter(Boolean)
    .join(", ");
  const check =
    signer.verified === null
      ? "signature not checked"
      : signer.verified
        ? "signature valid"
        : "signature INVALID";
  return `Signed by ${who} (${details}): ${check}; the certificate's trust is not checked`;
}

async function loadSigned(
  registry: BackendRegistry,
  input: BackendInput,
  depth: number,
): Promise<DocumentModel> {
  const signed = readSignedData(derBytes(input));
  if (signed.content === null || signed.content.length === 0) {
    throw new DocumentLoadError(
      "The PKCS#7 data holds no document (a detached signature): parse the signed file itself",
    );
  }
  const inner = unwrapMime(signed.content);
  const declared =
    inner.mimeType && registry.get(inner.mimeType) && inner.mimeType !== "text/plain" ? inner.mimeType : null;
  const mimeType = declared ?? sniffMimeType(inner.bytes) ?? inner.mimeType ?? "text/plain";
  let doc: DocumentModel;
  if (PKCS7_TYPES.includes(mimeType)) {
    if (depth >= MAX_NESTING) throw new DocumentLoadError("The PKCS#7 containers are nested too deep");
    doc = await loadSigned(registry, { ...input, bytes: inner.bytes, text: undefined, mimeType }, depth + 1);
  } else {
    const backend = registry.get(mimeType);
    if (!backend)
      throw new DocumentLoadError(`The signed document is of type ${mimeType}, which cannot be parsed`);
    doc = await backend.load({ ...input, bytes: inner.bytes, text: undefined, mimeType });
  }
  const signers = [...signed.signers, ...(doc.signers ?? [])];
  return {
    ...doc,
    mimeType: input.mimeType,
    backend: `pkcs7+${doc.backend}`,
    signers,
    warnings: [...signed.signers.map(describeSigner), ...doc.warnings],
  };
}

export function pkcs7Backend(registry: BackendRegistry): FormatBackend {
  return {
    name: "pkcs7",
    mimeTypes: PKCS7_TYPES,
    load: (input) => loadSigned(registry, input, 0),
  };
}
