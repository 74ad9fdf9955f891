import assert from "node:assert/strict";
import { test } from "node:test";
import { cutPoint, decodeLineBytes, encodeLineBytes } from "./line-text.ts";

test("valid UTF-8 decodes as is", () => {
  const { text, escaped } = decodeLineBytes(Buffer.from("héllo wörld 🎉", "utf8"));
  assert.equal(text, "héllo wörld 🎉");
  assert.equal(escaped, false);
});

test("invalid bytes become U+DC80..U+DCFF and round-trip", () => {
  const bytes = Buffer.from([
    0x61, 0xff, 0xfe, 0x62, 0xc3, 0x28, 0xe2, 0x82, 0xac, 0xed, 0xa0, 0x80, 0xf0, 0x9f,
  ]);
  const { text, escaped } = decodeLineBytes(bytes);
  assert.equal(escaped, true);
  assert.equal(text, "a\udcff\udcfeb\udcc3(€\udced\udca0\udc80\udcf0\udc9f");
  assert.deepEqual(encodeLineBytes(text), bytes);
  // JSON keeps the escapes as \udcXX.
  assert.equal(JSON.stringify(text).includes("\\udcff"), true);
  assert.deepEqual(encodeLineBytes(JSON.parse(JSON.stringify(text))), bytes);
});

test("every byte value survives", () => {
  const bytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  assert.deepEqual(encodeLineBytes(decodeLineBytes(bytes).text), bytes);
});

test("a real surrogate pair next to escapes is not taken for an escape", () => {
  const bytes = Buffer.concat([Buffer.from("🎉", "utf8"), Buffer.from([0x80])]);
  assert.deepEqual(encodeLineBytes(decodeLineBytes(bytes).text), bytes);
});

test("cutPoint does not split a multi-byte character", () => {
  const bytes = Buffer.from("aé€", "utf8"); // 61 c3 a9 e2 82 ac
  assert.equal(cutPoint(bytes, 2), 1);
  assert.equal(cutPoint(bytes, 3), 3);
  assert.equal(cutPoint(bytes, 5), 3);
  assert.equal(cutPoint(bytes, 10), 6);
});
