import assert from "node:assert/strict";
import { test } from "node:test";
import { parseDocument } from "./index.ts";
import { DocumentLoadError } from "./model.ts";
import { sniffMimeType } from "./sniff.ts";
import { decodeText } from "./text-decoding.ts";

/** UTF-16/32 bytes of a string, with or without a byte-order mark. */
function wide(
  text: string,
  encoding: "utf-16le" | "utf-16be" | "utf-32le" | "utf-32be",
  bom: boolean,
): Uint8Array {
  const units = encoding.startsWith("utf-16") ? 2 : 4;
  const little = encoding.endsWith("le");
  const codes = [...(bom ? "\ufeff" : ""), ...text].flatMap((char) => {
    const code = char.codePointAt(0) as number;
    if (units === 4) return [code];
    return code > 0xffff ? [0xd800 + ((code - 0x10000) >> 10), 0xdc00 + ((code - 0x10000) & 0x3ff)] : [code];
  });
  const out = new Uint8Array(codes.length * units);
  const view = new DataView(out.buffer);
  codes.forEach((code, i) => {
    if (units === 2) view.setUint16(i * 2, code, little);
    else view.setUint32(i * 4, code, little);
  });
  return out;
}

test("UTF-16 and UTF-32, with and without a byte-order mark, are decoded; the mark is dropped", () => {
  const text = "Grüße, 東京 and 🚀 in wide text.\nSecond line.";
  for (const encoding of ["utf-16le", "utf-16be", "utf-32le", "utf-32be"] as const) {
    for (const bom of [true, false]) {
      const decoded = decodeText(wide(text, encoding, bom), "text");
      assert.equal(decoded.text, text, `${encoding} ${bom ? "with" : "without"} a mark`);
      assert.deepEqual(decoded.warnings, []);
    }
  }
});

test("legacy charsets are told from the bytes: Windows-1252, Latin-1, Shift_JIS, GB18030, EUC-KR, Big5", () => {
  const samples: [string, string, RegExp][] = [
    ["windows-1252", "Grüße aus Köln — “quoted” café, déjà vu, 5 €.", /Windows-1252/],
    ["iso-8859-1", "Le cœur? Non: l'été à Noël, ça va très bien, garçon.".replace("œ", "oe"), /Windows-1252/],
    ["shift_jis", "日本語のテキストです。これは文字コードの判定のテストです。", /Shift_JIS/],
    ["gb18030", "这是中文文本。我们在测试编码的自动检测，这个方法应该可以用。", /GB18030/],
    ["euc-kr", "한국어 텍스트입니다. 이것은 문자 인코딩 감지를 위한 시험입니다.", /EUC-KR/],
    ["big5", "這是中文文本。我們在測試編碼的自動檢測，這個方法應該可以用。", /BIG5/],
  ];
  for (const [charset, text, warning] of samples) {
    const bytes = encode(text, charset);
    const decoded = decodeText(bytes, "text");
    assert.equal(decoded.text, text, charset);
    assert.match(decoded.warnings.join(" "), warning, charset);
  }
});

/** Encodes with the platform's decoders inverted (no encoder for legacy charsets): each character's bytes found by search. */
function encode(text: string, charset: string): Uint8Array {
  if (charset === "windows-1252" || charset === "iso-8859-1") {
    const table = new Map<string, number>();
    const decoder = new TextDecoder(charset);
    for (let b = 0; b < 256; b++) table.set(decoder.decode(new Uint8Array([b])), b);
    return new Uint8Array([...text].map((c) => table.get(c) as number));
  }
  const table = new Map<string, number[]>();
  const decoder = new TextDecoder(charset, { fatal: true });
  for (let lead = 0x81; lead <= 0xfe; lead++) {
    for (let trail = 0x40; trail <= 0xfe; trail++) {
      try {
        const char = decoder.decode(new Uint8Array([lead, trail]));
        if (!table.has(char)) table.set(char, [lead, trail]);
      } catch {}
    }
  }
  const out: number[] = [];
  for (const char of text) {
    const code = char.charCodeAt(0);
    const bytes = code < 0x80 ? [code] : table.get(char);
    assert.ok(bytes, `${char} in ${charset}`);
    out.push(...bytes);
  }
  return new Uint8Array(out);
}

test("XML names its encoding: the declaration is honoured; UTF-16 XML is read by its mark", async () => {
  const latin = encode(
    '<?xml version="1.0" encoding="ISO-8859-1"?><note><body>Crème brûlée</body></note>',
    "iso-8859-1",
  );
  const { result } = await parseDocument({ bytes: latin, mimeType: "application/xml" });
  assert.match(result.markdown, /Crème brûlée/);
  const utf16 = wide(
    '<?xml version="1.0" encoding="UTF-16"?><note><body>Wide XML words</body></note>',
    "utf-16le",
    true,
  );
  assert.equal(sniffMimeType(utf16), "application/xml");
  const wideResult = await parseDocument({ bytes: utf16, mimeType: "application/octet-stream" });
  assert.match(wideResult.result.markdown, /Wide XML words/);
});

test("unmarked UTF-16 text is recognised as text; binary with NULs in no pattern is not", async () => {
  const bytes = wide("Plain words in UTF-16 without a mark, long enough to tell.", "utf-16le", false);
  assert.equal(sniffMimeType(bytes), "text/plain");
  const { result } = await parseDocument({ bytes, mimeType: "application/octet-stream" });
  assert.match(result.markdown, /Plain words in UTF-16/);
  assert.throws(
    () => decodeText(new Uint8Array([65, 0, 0, 66, 7, 0, 0, 0, 1, 2, 0, 9]), "text"),
    DocumentLoadError,
  );
});
