import assert from "node:assert/strict";
import { test } from "node:test";
import { multipartBody } from "./multipart.ts";

test("a multipart body pulls file bytes only as it is read, and frames the parts", async () => {
  let pulled = 0;
  async function* endless() {
    for (;;) {
      pulled++;
      yield new Uint8Array(64 * 1024).fill(0x61);
    }
  }
  const { body, contentType } = multipartBody([
    { name: "labels", value: '{"a":"b"}' },
    { name: "file", fileName: 'big "1".txt', contentType: "text/plain\r\nX: y", data: endless() },
  ]);
  const boundary = /boundary=(\S+)$/.exec(contentType)?.[1];
  assert.ok(boundary);
  const reader = body.getReader();
  let head = "";
  for (let i = 0; i < 8; i++) {
    const { value } = await reader.read();
    head += new TextDecoder().decode(value?.subarray(0, 200));
  }
  assert.ok(pulled <= 8, `pulled ${pulled} chunks for 8 read`);
  assert.ok(
    head.startsWith(`--${boundary}\r\nContent-Disposition: form-data; name="labels"\r\n\r\n{"a":"b"}`),
  );
  assert.ok(head.includes('filename="big %221%22.txt"\r\nContent-Type: text/plainX: y\r\n\r\n'));
  await reader.cancel();

  const small = multipartBody([
    { name: "file", fileName: "a.txt", contentType: "text/plain", data: new Uint8Array([104, 105]) },
  ]);
  const text = await new Response(small.body).text();
  const b = /boundary=(\S+)$/.exec(small.contentType)?.[1];
  assert.equal(
    text,
    `--${b}\r\nContent-Disposition: form-data; name="file"; filename="a.txt"\r\nContent-Type: text/plain\r\n\r\nhi\r\n--${b}--\r\n`,
  );
});
