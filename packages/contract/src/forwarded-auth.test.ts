import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { test } from "node:test";
import {
  FORWARDED_AUTH_HEADER,
  FORWARDED_PROJECT_HEADER,
  forwardedAuthCanonicalString,
  generateForwardedAuthSecret,
  signForwardedAuth,
  verifyForwardedAuth,
} from "./forwarded-auth.ts";

const NOW = 1_700_000_000_000;
const base = {
  secret: "per-sandbox-secret",
  sandboxId: "sbx-1",
  method: "POST",
  pathAndQuery: "/api/v1/files?path=%2Ftmp%2Fa.txt",
};
const header = signForwardedAuth({ ...base, now: NOW });

test("header names are lower-case and prefixed", () => {
  assert.equal(FORWARDED_AUTH_HEADER, "x-svc-forwarded-auth");
  assert.equal(FORWARDED_PROJECT_HEADER, "x-svc-forwarded-project");
});

test("signs the documented canonical string", () => {
  const canonical = "v1\n1700000000\nPOST\n/api/v1/files?path=%2Ftmp%2Fa.txt\nsbx-1";
  assert.equal(forwardedAuthCanonicalString(base, 1700000000), canonical);
  const mac = createHmac("sha256", base.secret).update(canonical).digest("base64url");
  assert.equal(header, `v1,1700000000,${mac}`);
  assert.match(header, /^v1,\d+,[A-Za-z0-9_-]{43}$/);
});

test("a fresh header verifies", () => {
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW }), true);
  // The method's case does not matter.
  assert.equal(verifyForwardedAuth({ ...base, method: "post", header, now: NOW }), true);
  // A byte secret and its string form are the same key.
  const bytes = signForwardedAuth({ ...base, secret: Buffer.from(base.secret), now: NOW });
  assert.equal(bytes, header);
});

test("anything that differs from what was signed is rejected", () => {
  const variants = [
    { secret: "another-secret" },
    { sandboxId: "sbx-2" },
    { method: "GET" },
    { pathAndQuery: "/api/v1/files?path=%2Fetc%2Fshadow" },
    { pathAndQuery: "/api/v1/files" },
    { pathAndQuery: "/api/v1/files?path=%2Ftmp%2Fa.txt&x=1" },
  ];
  for (const variant of variants) {
    assert.equal(
      verifyForwardedAuth({ ...base, ...variant, header, now: NOW }),
      false,
      JSON.stringify(variant),
    );
  }
});

test("timestamps outside the skew window are rejected", () => {
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW + 300_000 }), true);
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW + 301_000 }), false);
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW - 300_000 }), true);
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW - 301_000 }), false);
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW + 10_000, skewSecs: 5 }), false);
  assert.equal(verifyForwardedAuth({ ...base, header, now: NOW + 4_000, skewSecs: 5 }), true);
  assert.equal(verifyForwardedAuth({ ...base, header, now: Number.NaN }), false);
  // The timestamp is part of the signature: moving it forward breaks the header.
  const [, , mac] = header.split(",");
  assert.equal(verifyForwardedAuth({ ...base, header: `v1,1700000100,${mac}`, now: NOW }), false);
});

test("a tampered signature is rejected", () => {
  const [version, ts, mac] = header.split(",");
  const flipped = (mac[0] === "A" ? "B" : "A") + mac.slice(1);
  assert.equal(verifyForwardedAuth({ ...base, header: `${version},${ts},${flipped}`, now: NOW }), false);
});

test("malformed headers are rejected without throwing", () => {
  const [, ts, mac] = header.split(",");
  const malformed: unknown[] = [
    undefined,
    null,
    "",
    [header],
    [header, header],
    "v1",
    `v2,${ts},${mac}`,
    `V1,${ts},${mac}`,
    `v1,${ts}`,
    `v1,${ts},${mac},extra`,
    `v1,,${mac}`,
    `v1,-${ts},${mac}`,
    `v1,0${ts},${mac}`,
    `v1,${ts},${mac.slice(1)}`,
    `v1,${ts},${mac}A`,
    `v1,${ts},${mac.slice(0, -1)}=`,
    `v1,${ts},${mac.replace(/./, "+")}`,
    ` ${header}`,
    `${header}\n`,
    "v1,99999999999999999999,abc",
  ];
  for (const value of malformed) {
    assert.equal(
      verifyForwardedAuth({ ...base, header: value as string, now: NOW }),
      false,
      `accepted ${JSON.stringify(value)}`,
    );
  }
});

test("an empty secret signs nothing and verifies nothing", () => {
  assert.throws(() => signForwardedAuth({ ...base, secret: "", now: NOW }), TypeError);
  assert.equal(verifyForwardedAuth({ ...base, secret: "", header, now: NOW }), false);
  assert.equal(verifyForwardedAuth({ ...base, secret: new Uint8Array(0), header, now: NOW }), false);
});

test("generated secrets are random 32-byte values", () => {
  const a = generateForwardedAuthSecret();
  const b = generateForwardedAuthSecret();
  assert.notEqual(a, b);
  assert.equal(Buffer.from(a, "base64url").length, 32);
  const signed = signForwardedAuth({ ...base, secret: a });
  assert.equal(verifyForwardedAuth({ ...base, secret: a, header: signed }), true);
  assert.equal(verifyForwardedAuth({ ...base, secret: b, header: signed }), false);
});
