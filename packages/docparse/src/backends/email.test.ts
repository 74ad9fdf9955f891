import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { zipSync } from "fflate";
import { parseDocument } from "../index.ts";
import { MAX_ATTACHMENTS } from "../mail/message.ts";
import { DocumentLoadError } from "../model.ts";
import { sniffMimeType } from "../sniff.ts";

const EML = "message/rfc822";
const FIXTURES = path.join(import.meta.dirname, "../../test/formats");
const fixture = (name: string) => new Uint8Array(readFileSync(path.join(FIXTURES, name)));
const bytes = (text: string) => new Uint8Array(Buffer.from(text.replace(/\n/g, "\r\n"), "latin1"));
const b64 = (data: Uint8Array | string) => Buffer.from(data).toString("base64").replace(/.{76}/g, "$&\n");

async function parse(input: Uint8Array, mimeType = EML) {
  return parseDocument({ bytes: input, mimeType });
}

async function refused(input: Uint8Array, pattern: RegExp) {
  await assert.rejects(parse(input), (error: unknown) => {
    assert.ok(error instanceof DocumentLoadError, String(error));
    assert.match(error.message, pattern);
    return true;
  });
}

describe("email (EML)", () => {
  test("header block, RFC 2047 words, quoted-printable HTML chosen over text, charsets", async () => {
    const mail = bytes(`From: =?utf-8?B?w4lsb2RpZSBEdXBvbnQ=?= <elodie@example.org>
To: "Bob" <bob@example.org>, carol@example.org
Cc: =?iso-8859-1?Q?J=FCrgen_M=FCller?= <j@example.org>
Date: Tue, 5 Mar 2024 10:20:30 +0100
Subject: =?utf-8?Q?R=C3=A9union_du_?= =?utf-8?Q?comit=C3=A9?=
Message-ID: <1@example.org>
MIME-Version: 1.0
Content-Type: multipart/alternative; boundary="alt"

--alt
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: quoted-printable

Plain version only.
--alt
Content-Type: text/html; charset=iso-8859-1
Content-Transfer-Encoding: quoted-printable

<html><body><h1>Ordre du jour</h1><p>Caf=E9 et budget =E0 discuter, pr=
=E9vu demain.</p><ul><li>Point un</li></ul></body></html>
--alt--
`);
    assert.equal(sniffMimeType(mail), EML);
    const { document, result } = await parse(mail);
    assert.equal(document.backend, "email");
    const md = result.markdown;
    assert.match(md, /^# Réunion du comité\n/);
    assert.match(md, /From: Élodie Dupont <elodie@example\.org>/);
    assert.match(md, /To: "Bob" <bob@example\.org>, carol@example\.org/);
    assert.match(md, /Cc: Jürgen Müller <j@example\.org>/);
    assert.match(md, /Date: Tue, 5 Mar 2024 10:20:30 \+0100/);
    assert.match(md, /## Ordre du jour/);
    assert.match(md, /Café et budget à discuter, prévu demain\./);
    assert.match(md, /- Point un/);
    assert.doesNotMatch(md, /Plain version only|Content-Transfer-Encoding|=E9/);
  });

  test("attachments parsed by their own backend as sections; inline images are figures; a zip attachment is opened", async () => {
    const csv = "name,score\nAda,10\nGrace,9\n";
    const zip = zipSync({ "notes/readme.md": new TextEncoder().encode("# Inside the zip\n\nZipped words.") });
    const png = Buffer.from(
      "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==",
      "base64",
    );
    const mail = bytes(`From: a@example.org
To: b@example.org
Subject: Results
Date: Wed, 6 Mar 2024 09:00:00 +0000
MIME-Version: 1.0
Content-Type: multipart/mixed; boundary="mix"

preamble to ignore
--mix
Content-Type: multipart/related; boundary="rel"

--rel
Content-Type: text/html; charset=utf-8

<p>See the chart <img src="cid:chart1"> and the scores attached.</p>
--rel
Content-Type: image/png
Content-ID: <chart1>
Content-Disposition: inline; filename="chart.png"
Content-Transfer-Encoding: base64

${b64(png)}
--rel--
--mix
Content-Type: text/csv; name="scores.csv"
Content-Disposition: attachment; filename="scores.csv"
Content-Transfer-Encoding: base64

${b64(csv)}
--mix
Content-Type: application/octet-stream
Content-Disposition: attachment; filename*=utf-8''archive%20%C3%A9t%C3%A9.zip
Content-Transfer-Encoding: base64

${b64(zip)}
--mix--
epilogue to ignore
`);
    const { document, result } = await parse(mail);
    const md = result.markdown;
    assert.match(md, /See the chart/);
    assert.ok(document.items.some((item) => item.label === "figure" && item.caption === "chart.png"));
    assert.match(md, /## Attachment: scores\.csv/);
    const table = document.items.find((item) => item.label === "table");
    assert.ok(table?.label === "table" && table.cells.some((cell) => cell.text === "Grace"));
    assert.match(md, /## Attachment: archive été\.zip/);
    assert.match(md, /Inside the zip/);
    assert.match(md, /Zipped words\./);
    assert.doesNotMatch(md, /preamble|epilogue|base64/);
    // The message is page 1; each attachment starts after it.
    assert.equal(table.prov[0]?.page, 2);
    assert.ok(document.pages.length >= 3);
  });

  test("multipart/digest and forwarded messages are nested sections", async () => {
    const mail = bytes(`From: list@example.org
Subject: Digest 42
MIME-Version: 1.0
Content-Type: multipart/digest; boundary="dig"

--dig

From: one@example.org
Subject: First post

Body of the first post.
--dig

From: two@example.org
Subject: Second post
Content-Type: text/plain; charset=utf-8
Content-Transfer-Encoding: base64

${b64("Body of the second post, in base64 — with a dash.")}
--dig--
`);
    const { result } = await parse(mail);
    assert.match(result.markdown, /^# Digest 42/);
    assert.match(result.markdown, /## First post\n\nFrom: one@example\.org\n\nBody of the first post\./);
    assert.match(result.markdown, /## Second post[\s\S]*Body of the second post, in base64 — with a dash\./);
  });

  test("malformed encodings: broken base64 and quoted-printable, a missing closing boundary, an unknown charset", async () => {
    const mail = bytes(`From: x@example.org
Subject: Broken
Content-Type: multipart/mixed; boundary="b"

--b
Content-Type: text/plain; charset=x-no-such-charset
Content-Transfer-Encoding: quoted-printable

Soft=
 break and a bad =ZZ escape.
--b
Content-Type: text/plain
Content-Transfer-Encoding: base64

${b64("Recovered from base64 with junk")}!!*
`);
    const { result } = await parse(mail);
    assert.match(result.markdown, /Soft break and a bad =ZZ escape\./);
    assert.match(result.markdown, /Recovered from base64 with junk/);
  });

  test("public samples: the MIME torture test, a nested related/alternative message, delivery and abuse reports", async () => {
    const torture = await parse(fixture("postalsys-mimetorture.eml"));
    assert.match(torture.result.markdown, /^# Ryan Finnie's MIME Torture Test v1\.0/);
    assert.match(torture.result.markdown, /by this point, I should be the 3rd layer deep!/);
    assert.match(torture.result.markdown, /Attachment: blah1\.gz/);
    assert.ok(torture.document.warnings.some((w) => /blah1\.gz .*not read/.test(w)));
    const nested = await parse(fixture("nodemailer-nested.eml"));
    assert.match(nested.result.markdown, /Dear Sir/);
    const status = await parse(fixture("nodemailer-delivery-status.eml"));
    assert.match(status.result.markdown, /^# Delivery Status Notification \(Failure\)/);
    const arf = await parse(fixture("postalsys-arf.eml"));
    assert.match(arf.result.markdown, /^# FW: Earn money/);
    for (const out of [torture, nested, status, arf]) {
      assert.doesNotMatch(out.result.markdown, /^Content-Transfer-Encoding: (base64|quoted-printable)$/im);
    }
  });

  test("PGP: clear-signed text is read without its armour; encrypted mail fails with the reason", async () => {
    const signed = bytes(`From: p@example.org
Subject: Signed
Content-Type: text/plain

-----BEGIN PGP SIGNED MESSAGE-----
Hash: SHA256

The signed words.
- -- dash-escaped line
-----BEGIN PGP SIGNATURE-----

iQEzBAEBCAAdFiEE
-----END PGP SIGNATURE-----
`);
    const { document, result } = await parse(signed);
    assert.match(result.markdown, /The signed words\./);
    assert.doesNotMatch(result.markdown, /BEGIN PGP|iQEzBAEBCAAdFiEE/);
    assert.ok(document.warnings.some((w) => /signed with PGP/.test(w)));
    await refused(
      bytes(`From: p@example.org
Subject: Secret
MIME-Version: 1.0
Content-Type: multipart/encrypted; protocol="application/pgp-encrypted"; boundary="e"

--e
Content-Type: application/pgp-encrypted

Version: 1
--e
Content-Type: application/octet-stream

-----BEGIN PGP MESSAGE-----
hQEMA
-----END PGP MESSAGE-----
--e--
`),
      /encrypted \(PGP\/MIME\).*private key/,
    );
  });

  test("an mbox mailbox: each message in turn, on a page of its own, >From lines unescaped", async () => {
    const mbox = new TextEncoder().encode(
      "From a@example.org Mon Jan  1 00:00:00 2024\nFrom: a@example.org\nSubject: First\n\nFirst body.\n>From the escaped line.\n\n" +
        "From b@example.org Mon Jan  1 00:00:00 2024\nFrom: b@example.org\nSubject: Second\n\nSecond body.\n",
    );
    assert.equal(sniffMimeType(mbox), EML);
    const { document, result } = await parse(mbox, "application/octet-stream");
    assert.match(
      result.markdown,
      /^# First\n\nFrom: a@example\.org\n\nFirst body\.\nFrom the escaped line\.\n\n# Second/,
    );
    assert.equal(document.pages.length, 2);
  });

  test("a message with more attachments than are read names the rest", async () => {
    const parts = Array.from(
      { length: MAX_ATTACHMENTS + 5 },
      (_, i) =>
        `--x\nContent-Type: text/plain\nContent-Disposition: attachment; filename="a${i}.txt"\n\nWords ${i}.\n`,
    );
    const mail = bytes(
      `From: many@example.org\nSubject: Many\nContent-Type: multipart/mixed; boundary="x"\n\n${parts.join("")}--x--\n`,
    );
    const { document, result } = await parse(mail);
    assert.match(result.markdown, /Words 0\./);
    assert.doesNotMatch(result.markdown, new RegExp(`Words ${MAX_ATTACHMENTS}\\.`));
    assert.match(result.markdown, new RegExp(`Attachment: a${MAX_ATTACHMENTS + 4}\\.txt`));
    assert.ok(document.warnings.some((w) => /Only the first 200 attachments/.test(w)));
  });

  test("bad input: empty, binary, text without header fields, header fields only", async () => {
    await refused(new Uint8Array(0), /empty/);
    await refused(new Uint8Array([0x00, 0xff, 0x10, 0x80, 0x00, 0x01, 0x02, 0x03, 0x04]), /not an email/);
    await refused(bytes("Just a sentence, no header.\n\nAnother."), /not an email/);
    const { result } = await parse(bytes("From: only@example.org\nSubject: Headers only\n"));
    assert.match(result.markdown, /# Headers only/);
  });
});

let openssl = true;
try {
  execFileSync("openssl", ["version"], { stdio: "ignore" });
} catch {
  openssl = false;
}

describe("S/MIME email", { skip: !openssl && "openssl is not installed" }, () => {
  let dir = "";
  const run = (...args: string[]) =>
    execFileSync("openssl", args, { cwd: dir, stdio: ["ignore", "pipe", "pipe"] });
  before(() => {
    dir = mkdtempSync(path.join(tmpdir(), "svc-smime-"));
    run(
      "req",
      "-x509",
      "-newkey",
      "rsa:2048",
      "-nodes",
      "-keyout",
      "key.pem",
      "-out",
      "cert.pem",
      "-days",
      "2",
      "-subj",
      "/CN=Mail Signer/O=Example",
    );
    writeFileSync(
      path.join(dir, "body.txt"),
      "Content-Type: text/plain; charset=utf-8\r\n\r\nThe signed quarterly numbers are final.\r\n",
    );
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  const headers =
    "From: s@example.org\r\nTo: r@example.org\r\nSubject: Numbers\r\nDate: Thu, 7 Mar 2024 08:00:00 +0000\r\n";

  test("detached (multipart/signed) and opaque signatures: the content is read and the signer named", async () => {
    run(
      "smime",
      "-sign",
      "-in",
      "body.txt",
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-out",
      "detached.eml",
    );
    run(
      "smime",
      "-sign",
      "-nodetach",
      "-in",
      "body.txt",
      "-signer",
      "cert.pem",
      "-inkey",
      "key.pem",
      "-out",
      "opaque.eml",
    );
    for (const name of ["detached.eml", "opaque.eml"]) {
      const mail = new Uint8Array(Buffer.concat([Buffer.from(headers), readFileSync(path.join(dir, name))]));
      assert.equal(sniffMimeType(mail), EML, name);
      const { document, result } = await parse(mail, "application/octet-stream");
      assert.match(result.markdown, /^# Numbers/, name);
      assert.match(result.markdown, /The signed quarterly numbers are final\./, name);
      assert.ok(
        document.warnings.some((w) => /Signed by Mail Signer/.test(w)),
        `${name}: ${document.warnings.join("; ")}`,
      );
    }
  });

  test("encrypted (enveloped) mail fails with the reason", async () => {
    run("smime", "-encrypt", "-aes256", "-in", "body.txt", "-out", "encrypted.eml", "cert.pem");
    const mail = new Uint8Array(
      Buffer.concat([Buffer.from(headers), readFileSync(path.join(dir, "encrypted.eml"))]),
    );
    await refused(mail, /encrypted \(S\/MIME\).*private key/);
  });
});
