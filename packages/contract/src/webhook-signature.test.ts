import assert from "node:assert/strict";
import { createHmac, randomBytes } from "node:crypto";
import { test } from "node:test";
import { Compile } from "typebox/compile";
import {
  generateWebhookSecret,
  signWebhook,
  verifyWebhook,
  WEBHOOK_EVENTS,
  WebhookEventName,
  WebhookPayload,
} from "./webhook-signature.ts";

const key = randomBytes(32);
const secret = `whsec_${key.toString("base64")}`;
const body = JSON.stringify({ job_id: "parse_1", status: "successful", created_at: "2025-01-01T00:00:00Z" });
const sentAt = new Date("2025-01-01T00:00:10Z");
const sentAtSecs = 1735689610;

test("signWebhook matches an HMAC-SHA256 computed independently", () => {
  const headers = signWebhook({ secret, id: "msg_1", timestamp: sentAt, body });
  const expected = createHmac("sha256", key).update(`msg_1.${sentAtSecs}.${body}`).digest("base64");
  assert.deepEqual(headers, {
    "webhook-id": "msg_1",
    "webhook-timestamp": String(sentAtSecs),
    "webhook-signature": `v1,${expected}`,
  });
  assert.deepEqual(
    signWebhook({ secret, id: "msg_1", timestamp: sentAtSecs, body: Buffer.from(body) }),
    headers,
  );
});

test("verifyWebhook accepts a request signed independently, headers in any case", () => {
  const mac = createHmac("sha256", key).update(`msg_2.${sentAtSecs}.${body}`).digest("base64");
  const headers = {
    "Webhook-Id": "msg_2",
    "WEBHOOK-TIMESTAMP": String(sentAtSecs),
    "webhook-signature": `v1,${mac}`,
  };
  assert.equal(verifyWebhook({ secret, headers, body, now: sentAt }), true);
  assert.equal(
    verifyWebhook({ secret, headers: new Headers(headers), body: Buffer.from(body), now: sentAt }),
    true,
  );
});

test("verifyWebhook accepts any one of several signatures", () => {
  const other = generateWebhookSecret();
  const signed = signWebhook({ secret, id: "msg_3", timestamp: sentAt, body });
  const byOther = signWebhook({ secret: other, id: "msg_3", timestamp: sentAt, body });
  const headers = {
    ...signed,
    "webhook-signature": `v1a,abc ${byOther["webhook-signature"]} ${signed["webhook-signature"]}`,
  };
  assert.equal(verifyWebhook({ secret, headers, body, now: sentAt }), true);
  assert.equal(verifyWebhook({ secret: other, headers, body, now: sentAt }), true);
  assert.equal(verifyWebhook({ secret: generateWebhookSecret(), headers, body, now: sentAt }), false);
});

test("verifyWebhook rejects a tampered body, id or timestamp", () => {
  const headers = signWebhook({ secret, id: "msg_4", timestamp: sentAt, body });
  assert.equal(verifyWebhook({ secret, headers, body: `${body} `, now: sentAt }), false);
  assert.equal(
    verifyWebhook({ secret, headers: { ...headers, "webhook-id": "msg_5" }, body, now: sentAt }),
    false,
  );
  const shifted = { ...headers, "webhook-timestamp": String(sentAtSecs + 1) };
  assert.equal(verifyWebhook({ secret, headers: shifted, body, now: sentAt }), false);
});

test("verifyWebhook rejects timestamps outside the tolerance", () => {
  const headers = signWebhook({ secret, id: "msg_6", timestamp: sentAt, body });
  const at = (secs: number) => new Date((sentAtSecs + secs) * 1000);
  assert.equal(verifyWebhook({ secret, headers, body, now: at(300) }), true);
  assert.equal(verifyWebhook({ secret, headers, body, now: at(301) }), false);
  assert.equal(verifyWebhook({ secret, headers, body, now: at(-301) }), false);
  assert.equal(verifyWebhook({ secret, headers, body, now: at(600), toleranceSecs: 600 }), true);
});

test("verifyWebhook never throws on malformed input", () => {
  const good = signWebhook({ secret, id: "msg_7", timestamp: sentAt, body });
  const cases: unknown[] = [
    { secret: "not a secret", headers: good, body },
    { secret: "whsec_", headers: good, body },
    { secret, headers: {}, body },
    { secret, headers: { ...good, "webhook-signature": "v1," }, body },
    { secret, headers: { ...good, "webhook-signature": "v1,!!!" }, body },
    { secret, headers: { ...good, "webhook-signature": "garbage" }, body },
    { secret, headers: { ...good, "webhook-timestamp": "soon" }, body },
    { secret, headers: { ...good, "webhook-timestamp": "1e3" }, body },
    { secret, headers: { ...good, "webhook-id": ["a", "b"] }, body },
    { secret, headers: null, body },
    { secret, headers: good, body: 42 },
    { secret: 7, headers: good, body },
  ];
  for (const input of cases) {
    assert.equal(
      verifyWebhook({ now: sentAt, ...(input as object) } as Parameters<typeof verifyWebhook>[0]),
      false,
    );
  }
});

test("signWebhook refuses a secret that is not whsec_<base64>", () => {
  assert.throws(() => signWebhook({ secret: "whsec_***", id: "m", timestamp: 1, body: "" }), TypeError);
  assert.match(generateWebhookSecret(), /^whsec_[A-Za-z0-9+/]{43}=$/);
});

test("webhook event names and payload schema", () => {
  assert.deepEqual(WEBHOOK_EVENTS, [
    "document_ingestion.job.created",
    "document_ingestion.job.completed",
    "document_ingestion.job.failed",
  ]);
  assert.equal(Compile(WebhookEventName).Check("document_ingestion.job.done"), false);
  const payload = Compile(WebhookPayload);
  assert.equal(payload.Check(JSON.parse(body)), true);
  assert.equal(payload.Check({ ...JSON.parse(body), dataset_id: "ds_1" }), true);
  assert.equal(payload.Check({ ...JSON.parse(body), status: "success" }), false);
  assert.equal(payload.Check({ status: "pending", created_at: "2025-01-01T00:00:00Z" }), false);
});
