import assert from "node:assert/strict";
import { test } from "node:test";
import {
  answerAddresses,
  buildAnswer,
  buildQuery,
  errorResponse,
  parseAnswers,
  parseQuestion,
  RCODE_REFUSED,
} from "./dns-message.ts";

test("a query's question, an answer's A records, a refusal: round trips", () => {
  const query = buildQuery(0x1234, "API.Example.com.");
  const question = parseQuestion(query);
  assert.deepEqual(question && { id: question.id, name: question.name, type: question.type }, {
    id: 0x1234,
    name: "api.example.com",
    type: 1,
  });
  const answer = buildAnswer(query, ["10.0.0.1", "10.0.0.2"], 30) as Buffer;
  assert.equal(parseQuestion(answer), null, "an answer is not a query");
  const parsed = parseAnswers(answer);
  assert.equal(parsed?.rcode, 0);
  assert.deepEqual(answerAddresses(parsed?.answers ?? []), { addresses: ["10.0.0.1", "10.0.0.2"], ttl: 30 });
  assert.equal(
    parsed?.answers[0].name,
    "api.example.com",
    "a compressed owner name is read through its pointer",
  );
  const refused = errorResponse(query, question as NonNullable<typeof question>, RCODE_REFUSED);
  assert.equal(refused.readUInt16BE(0), 0x1234);
  assert.equal(parseAnswers(refused)?.rcode, RCODE_REFUSED);
  assert.deepEqual(parseAnswers(refused)?.answers, []);
});

test("malformed messages are null, never a throw or a loop", () => {
  const query = buildQuery(1, "a.example");
  for (const cut of [0, 5, 12, 14, query.length - 1])
    assert.equal(parseQuestion(query.subarray(0, cut)), null, `cut ${cut}`);
  const answer = buildAnswer(query, ["1.2.3.4"], 5) as Buffer;
  assert.equal(parseAnswers(answer.subarray(0, answer.length - 2)), null, "rdata past the end");
  // A name whose pointer points at itself.
  const looping = Buffer.from(answer);
  looping.writeUInt16BE(0xc000 | (looping.length - 16), looping.length - 16);
  assert.equal(parseAnswers(looping), null);
  // A label longer than the message.
  const long = Buffer.from(query);
  long[12] = 63;
  assert.equal(parseQuestion(long), null);
});
