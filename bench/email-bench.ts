/**
 * Email parsing throughput: a set of generated messages (multipart/alternative HTML and text, quoted-printable
 * and base64 bodies, RFC 2047 headers, CSV and text attachments, a forwarded message) parsed one after the
 * other in this process, and, when a folder of real `.eml` files is given, those too.
 *
 *   node bench/email-bench.ts [--count 500] [--folder <dir of .eml files>] [--rounds 3]
 *
 * Prints emails per second and MB per second (median of the rounds) for each set. Target: ≥ 100 emails/s on
 * 2 cores for ordinary mail (attachments that need OCR or LibreOffice cost what those backends cost).
 */
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { parseArgs } from "node:util";
import { parseDocument } from "../packages/docparse/src/index.ts";

const { values } = parseArgs({
  options: {
    count: { type: "string", default: "500" },
    folder: { type: "string" },
    rounds: { type: "string", default: "3" },
  },
});

const crlf = (lines: string[]) => new TextEncoder().encode(lines.join("\r\n"));
const b64 = (text: string) => Buffer.from(text).toString("base64").replace(/.{76}/g, "$&\r\n");

/** A message of one of four shapes, its words varied by `i`. */
function message(i: number): Uint8Array {
  const words = `Order ${i} for customer ${i * 7} shipped on day ${i % 28}. `.repeat(20 + (i % 30));
  const head = [
    `From: =?utf-8?Q?Caf=C3=A9_${i}?= <shop${i}@example.org>`,
    `To: customer${i}@example.org`,
    `Subject: =?utf-8?B?${Buffer.from(`Commande n° ${i}`).toString("base64")}?=`,
    "Date: Mon, 4 Mar 2024 10:00:00 +0000",
    `Message-ID: <${i}@example.org>`,
    "MIME-Version: 1.0",
  ];
  switch (i % 4) {
    case 0:
      return crlf([
        ...head,
        "Content-Type: text/plain; charset=utf-8",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        words.replace(/(.{70})/g, "$1=\r\n"),
        "",
      ]);
    case 1:
      return crlf([
        ...head,
        'Content-Type: multipart/alternative; boundary="a"',
        "",
        "--a",
        "Content-Type: text/plain; charset=utf-8",
        "",
        words,
        "--a",
        "Content-Type: text/html; charset=utf-8",
        "Content-Transfer-Encoding: base64",
        "",
        b64(
          `<html><body><h1>Order ${i}</h1><p>${words}</p><table><tr><th>Item</th><th>Qty</th></tr><tr><td>Tea</td><td>${i}</td></tr></table></body></html>`,
        ),
        "--a--",
        "",
      ]);
    case 2:
      return crlf([
        ...head,
        'Content-Type: multipart/mixed; boundary="m"',
        "",
        "--m",
        "Content-Type: text/plain; charset=utf-8",
        "",
        words,
        "--m",
        'Content-Type: text/csv; name="items.csv"',
        'Content-Disposition: attachment; filename="items.csv"',
        "Content-Transfer-Encoding: base64",
        "",
        b64(
          `item,qty,price\n${Array.from({ length: 30 }, (_, k) => `item${k},${k + i},${(k * 1.5).toFixed(2)}`).join("\n")}\n`,
        ),
        "--m",
        'Content-Type: text/plain; name="notes.txt"',
        'Content-Disposition: attachment; filename="notes.txt"',
        "",
        words,
        "--m--",
        "",
      ]);
    default:
      return crlf([
        ...head,
        'Content-Type: multipart/mixed; boundary="f"',
        "",
        "--f",
        "Content-Type: text/plain",
        "",
        "Forwarding the message below.",
        "--f",
        "Content-Type: message/rfc822",
        "",
        `From: original${i}@example.org`,
        "Subject: Original",
        "Content-Type: text/html; charset=iso-8859-1",
        "Content-Transfer-Encoding: quoted-printable",
        "",
        `<p>Caf=E9 ${words}</p>`,
        "--f--",
        "",
      ]);
  }
}

async function measure(label: string, mails: Uint8Array[]): Promise<void> {
  const rates: number[] = [];
  const bytes = mails.reduce((n, m) => n + m.length, 0);
  let failed = 0;
  for (let round = 0; round < Number(values.rounds); round++) {
    const started = performance.now();
    for (const mail of mails) {
      try {
        await parseDocument({ bytes: mail, mimeType: "message/rfc822" });
      } catch {
        if (round === 0) failed++;
      }
    }
    rates.push(mails.length / ((performance.now() - started) / 1000));
  }
  rates.sort((a, b) => a - b);
  const median = rates[Math.floor(rates.length / 2)];
  console.log(
    `${label}: ${mails.length} emails, ${(bytes / 2 ** 20).toFixed(1)} MB; ${median.toFixed(0)} emails/s, ` +
      `${((median * bytes) / mails.length / 2 ** 20).toFixed(1)} MB/s (median of ${rates.length}; rounds ${rates.map((r) => r.toFixed(0)).join(", ")})` +
      (failed ? `; ${failed} refused` : ""),
  );
}

const count = Number(values.count);
await measure(
  "generated",
  Array.from({ length: count }, (_, i) => message(i)),
);
if (values.folder) {
  const files = readdirSync(values.folder).filter((name) => name.toLowerCase().endsWith(".eml"));
  await measure(
    `folder ${values.folder}`,
    files.map((name) => new Uint8Array(readFileSync(path.join(values.folder as string, name)))),
  );
}
