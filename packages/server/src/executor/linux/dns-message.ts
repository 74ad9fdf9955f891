/**
 * # dns-message
 *
 * Just enough of the DNS wire format (RFC 1035) for the sandboxes' resolver: the question of a query, the
 * answer records of a response (names decompressed), and a refusal built from a query. Pure functions over
 * Buffers; anything malformed is null (the resolver then drops the packet).
 */

export const TYPE_A = 1;
export const RCODE_REFUSED = 5;

export interface Question {
  id: number;
  /** Lower case, no trailing dot. */
  name: string;
  type: number;
  /** Offset just past the first question. */
  end: number;
}

export interface AnswerRecord {
  name: string;
  type: number;
  ttl: number;
  data: Buffer;
}

/** A possibly compressed name at `offset`: the name and the offset after it in the message; null if malformed. */
function readName(message: Buffer, offset: number): { name: string; next: number } | null {
  const labels: string[] = [];
  let at = offset;
  let next = -1;
  for (let jumps = 0; jumps < 64; jumps++) {
    if (at >= message.length) return null;
    const length = message[at];
    if (length === 0) {
      return { name: labels.join(".").toLowerCase(), next: next === -1 ? at + 1 : next };
    }
    if ((length & 0xc0) === 0xc0) {
      if (at + 1 >= message.length) return null;
      if (next === -1) next = at + 2;
      at = ((length & 0x3f) << 8) | message[at + 1];
      continue;
    }
    if ((length & 0xc0) !== 0 || at + 1 + length > message.length) return null;
    labels.push(message.toString("latin1", at + 1, at + 1 + length));
    at += 1 + length;
  }
  return null;
}

/** The first question of a query (a message with QR clear and one question or more); null otherwise. */
export function parseQuestion(message: Buffer): Question | null {
  if (message.length < 12) return null;
  const flags = message.readUInt16BE(2);
  if (flags & 0x8000 || message.readUInt16BE(4) < 1) return null;
  const name = readName(message, 12);
  if (!name || name.next + 4 > message.length) return null;
  return {
    id: message.readUInt16BE(0),
    name: name.name,
    type: message.readUInt16BE(name.next),
    end: name.next + 4,
  };
}

/** The response code and answer records of a response; null when it is not one. */
export function parseAnswers(message: Buffer): { rcode: number; answers: AnswerRecord[] } | null {
  if (message.length < 12 || !(message.readUInt16BE(2) & 0x8000)) return null;
  const rcode = message.readUInt16BE(2) & 0x0f;
  let at = 12;
  for (let i = 0; i < message.readUInt16BE(4); i++) {
    const name = readName(message, at);
    if (!name) return null;
    at = name.next + 4;
  }
  const answers: AnswerRecord[] = [];
  for (let i = 0; i < message.readUInt16BE(6); i++) {
    const name = readName(message, at);
    if (!name || name.next + 10 > message.length) return null;
    const type = message.readUInt16BE(name.next);
    const ttl = message.readUInt32BE(name.next + 4);
    const length = message.readUInt16BE(name.next + 8);
    const start = name.next + 10;
    if (start + length > message.length) return null;
    answers.push({ name: name.name, type, ttl, data: message.subarray(start, start + length) });
    at = start + length;
  }
  return { rcode, answers };
}

/** The IPv4 addresses and the smallest TTL of a response's A records (CNAME chains included). */
export function answerAddresses(answers: AnswerRecord[]): { addresses: string[]; ttl: number } {
  const a = answers.filter((record) => record.type === TYPE_A && record.data.length === 4);
  return {
    addresses: a.map((record) => [...record.data].join(".")),
    ttl: a.length > 0 ? Math.min(...a.map((record) => record.ttl)) : 0,
  };
}

/** A response to `query` with no answer and this code: the id, RD and the question kept, QR and RA set. */
export function errorResponse(query: Buffer, question: Question, rcode: number): Buffer {
  const response = Buffer.from(query.subarray(0, question.end));
  const rd = query.readUInt16BE(2) & 0x0100;
  response.writeUInt16BE(0x8000 | rd | 0x0080 | rcode, 2);
  response.writeUInt16BE(1, 4);
  response.writeUInt16BE(0, 6);
  response.writeUInt16BE(0, 8);
  response.writeUInt16BE(0, 10);
  return response;
}

/** A query for `name` of `type` with this id, recursion desired (tests and probes). */
export function buildQuery(id: number, name: string, type = TYPE_A): Buffer {
  const labels = name.split(".").filter(Boolean);
  const body = Buffer.concat([
    ...labels.map((label) => Buffer.concat([Buffer.from([label.length]), Buffer.from(label, "latin1")])),
    Buffer.from([0, type >> 8, type & 0xff, 0, 1]),
  ]);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(id, 0);
  header.writeUInt16BE(0x0100, 2);
  header.writeUInt16BE(1, 4);
  return Buffer.concat([header, body]);
}

/** A response to `query` answering A records (owner: the question's name) with this TTL (tests' fake servers). */
export function buildAnswer(query: Buffer, addresses: string[], ttl: number): Buffer | null {
  const question = parseQuestion(query);
  if (!question) return null;
  const head = errorResponse(query, question, 0);
  head.writeUInt16BE(addresses.length, 6);
  const records = addresses.map((address) => {
    const record = Buffer.alloc(16);
    record.writeUInt16BE(0xc00c, 0);
    record.writeUInt16BE(TYPE_A, 2);
    record.writeUInt16BE(1, 4);
    record.writeUInt32BE(ttl, 6);
    record.writeUInt16BE(4, 10);
    for (const [i, part] of address.split(".").entries()) record[12 + i] = Number(part);
    return record;
  });
  return Buffer.concat([head, ...records]);
}
