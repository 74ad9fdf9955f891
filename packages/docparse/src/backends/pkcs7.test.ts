import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { parseDocument } from "../index.ts";
import { DocumentLoadError } from "../model.ts";

let openssl = true;
try {
  execFileSync("openssl", ["version"]);
} catch {
  openssl = false;
}

describe("PKCS#7 signed documents", { skip: !openssl && "openssl is not installed" }, () => {
  let dir = "";
  const run = (...args: string[]) =>
    execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  /** A self-signed RSA certificate for `subject`, valid two days; `extra` adds `req` options. */
  const selfSigned = (cert: string, key: string, subject: string, extra: string[] = []) =>
    run(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      key,
      "-out",
      cert,
      "-days",
      "2",
      "-subj",
      subject,
      ...extra,
    );
  /** `input` signed as DER SignedData with the content inside. */
  const signDer = (cert: string, key: string, input: string, out: string) =>
    run(
      "cms",
      "-sign",
      "-binary",
      "-nodetach",
      "-in",
      input,
      "-signer",
      cert,
      "-inkey",
      key,
      "-outform",
      "DER",
      "-out",
      out,
    );
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "svc-pkcs7-"));
    selfSigned("cert.pem", "key.pem", "/CN=Ada Signer/O=Example");
    writeFileSync(path.join(dir, "doc.html"), "<h1>Signed report</h1><p>Total: 42</p>");
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  test("DER SignedData: the inner HTML is parsed and the signer recorded, with its signature checked", async () => {
    signDer("cert.pem", "key.pem", "doc.html", "doc.p7m");
    const bytes = new Uint8Array(readFileSync(path.join(dir, "doc.p7m")));
    const { document, result } = await parseDocument({ bytes, mimeType: "application/pkcs7-mime" });
    assert.equal(result.markdown, "# Signed report\n\nTotal: 42");
    assert.equal(document.backend, "pkcs7+html");
    assert.equal(document.signers?.length, 1);
    const [signer] = document.signers ?? [];
    assert.equal(signer.commonName, "Ada Signer");
    assert.match(signer.issuer ?? "", /CN=Ada Signer/);
    assert.ok(signer.signingTime && Math.abs(Date.parse(signer.signingTime) - Date.now()) < 3_600_000);
    assert.equal(signer.verified, true);
    assert.match(
      result.warnings[0],
      /^Signed by Ada Signer \(issuer Ada Signer, serial [0-9A-F]+, signed at .*\): signature valid/,
    );
    // The same bytes declared as octet-stream are recognised.
    const sniffed = await parseDocument({ bytes, mimeType: "application/octet-stream" });
    assert.equal(sniffed.result.markdown, result.markdown);
    // A changed byte in the content breaks the signature, and says so.
    const tampered = Buffer.from(bytes);
    const at = tampered.indexOf("42");
    tampered[at] = "7".charCodeAt(0);
    const broken = await parseDocument({
      bytes: new Uint8Array(tampered),
      mimeType: "application/pkcs7-mime",
    });
    assert.equal(broken.document.signers?.[0].verified, false);
  });

  test("a signer whose serial starts with a zero nibble is still found by its certificate", async () => {
    // A random serial starts with 0x01-0x0F one time in sixteen: that signer lost its name until serials
    // compared as numbers.
    selfSigned("c2.pem", "k2.pem", "/CN=Nibble Signer", ["-set_serial", "0x0A1B2C3D4E5F"]);
    signDer("c2.pem", "k2.pem", "doc.html", "nibble.p7m");
    const bytes = new Uint8Array(readFileSync(path.join(dir, "nibble.p7m")));
    const { document } = await parseDocument({ bytes, mimeType: "application/pkcs7-mime" });
    assert.equal(document.signers?.[0]?.commonName, "Nibble Signer");
    assert.equal(document.signers?.[0]?.verified, true);
  });

  test("S/MIME (base64 with MIME headers) and PEM; a detached signature is refused with the reason", async () => {
    run(
      "smime",
      "-sign",
      "-nodetach",
      "-in",
      "doc.html",
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-out",
      "mail.p7m",
    );
    const smime = await parseDocument({
      bytes: readFileSync(path.join(dir, "mail.p7m")),
      mimeType: "application/x-pkcs7-mime",
    });
    assert.match(smime.result.markdown, /Total: 42/);
    run(
      "cms",
      "-sign",
      "-binary",
      "-nodetach",
      "-in",
      "doc.html",
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-outform",
      "PEM",
      "-out",
      "doc.pem",
    );
    const pem = await parseDocument({
      text: readFileSync(path.join(dir, "doc.pem"), "latin1"),
      mimeType: "application/pkcs7-mime",
    });
    assert.match(pem.result.markdown, /Total: 42/);
    run(
      "cms",
      "-sign",
      "-binary",
      "-in",
      "doc.html",
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-outform",
      "DER",
      "-out",
      "detached.p7s",
    );
    await assert.rejects(
      parseDocument({
        bytes: readFileSync(path.join(dir, "detached.p7s")),
        mimeType: "application/pkcs7-signature",
      }),
      (error) => error instanceof DocumentLoadError && /detached/.test(error.message),
    );
  });

  test("truncated and foreign data is a DocumentLoadError", async () => {
    const bytes = readFileSync(path.join(dir, "doc.p7m"));
    await assert.rejects(
      parseDocument({ bytes: bytes.subarray(0, 200), mimeType: "application/pkcs7-mime" }),
      DocumentLoadError,
    );
    await assert.rejects(
      parseDocument({ text: "hello", mimeType: "application/pkcs7-mime" }),
      DocumentLoadError,
    );
  });
});
