import assert from "node:assert/strict";
import { request } from "node:http";
import { after, before, describe, test } from "node:test";
import type { RunningDaemon } from "./daemon.ts";
import { type DaemonTestClient, startTestDaemon, type TestResponse } from "./testing.ts";

/** The HTTP layer's own rules (app.ts): matching, auth before the body, JSON bodies, answers. */

let daemon: RunningDaemon;
let client: DaemonTestClient;

before(async () => {
  ({ daemon, client } = await startTestDaemon({ bodyLimitBytes: 64 * 1024 }));
});

after(async () => {
  await daemon.close();
});

function assertError(response: TestResponse, status: number, code: string): void {
  assert.equal(response.status, status, response.text);
  assert.equal(response.json?.code, code, response.text);
  assert.equal(typeof response.json?.error, "string");
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
}

describe("routes", () => {
  test("a trailing slash is ignored; HEAD is served by GET without a body", async () => {
    assert.deepEqual((await client.request("GET", "/api/v1/health/")).json, { healthy: true });
    const head = await client.request("HEAD", "/api/v1/info");
    assert.equal(head.status, 200);
    assert.equal(head.text, "");
  });

  test("unknown paths and methods are 404 ROUTE_NOT_FOUND naming the request", async () => {
    const answer = await client.request("DELETE", "/api/v1/info?x=1");
    assertError(answer, 404, "ROUTE_NOT_FOUND");
    assert.equal(answer.json.message, "no route DELETE /api/v1/info");
    assertError(await client.request("GET", "/api/v1/processes/1/nothing"), 404, "ROUTE_NOT_FOUND");
  });

  test("a path parameter that is not valid percent-encoding is 400", async () => {
    assertError(await client.request("GET", "/api/v1/processes/%E0%A4%A"), 400, "INVALID_REQUEST");
  });

  test("path values are validated and coerced: a pid that is no number is 400 naming it", async () => {
    const answer = await client.request("GET", "/api/v1/processes/abc");
    assertError(answer, 400, "INVALID_REQUEST");
    assert.match(answer.json.message, /pid/);
    assertError(await client.request("GET", "/api/v1/processes/12345"), 404, "PROCESS_NOT_FOUND");
  });
});

describe("auth comes before the body", () => {
  test("an unsigned request with a body too large or not JSON is 401, not 413 or 400", async () => {
    const headers = { "content-type": "application/json" };
    const big = "x".repeat(128 * 1024);
    assertError(
      await client.request("POST", "/api/v1/processes", { body: big, headers, auth: false }),
      401,
      "UNAUTHORIZED",
    );
    assertError(
      await client.request("POST", "/api/v1/processes", { body: "{", headers, auth: false }),
      401,
      "UNAUTHORIZED",
    );
  });
});

describe("JSON bodies", () => {
  const post = (body: string, contentType?: string) =>
    client.request("POST", "/api/v1/processes", {
      body,
      headers: contentType ? { "content-type": contentType } : {},
    });

  test("an empty body with a JSON type is 400 INVALID_JSON", async () => {
    assertError(await post("", "application/json"), 400, "INVALID_JSON");
  });

  test("prototype poisoning is 400 INVALID_JSON", async () => {
    assertError(
      await post('{"command":"true","__proto__":{"x":1}}', "application/json"),
      400,
      "INVALID_JSON",
    );
    assertError(
      await post('{"command":"true","constructor":{"prototype":{"x":1}}}', "application/json"),
      400,
      "INVALID_JSON",
    );
  });

  test("a JSON type with parameters is parsed; other types are not read as JSON", async () => {
    const started = await post('{"command":"true"}', "application/json; charset=utf-8");
    assert.equal(started.status, 201, started.text);
    assertError(await post('{"command":"true"}', "text/plain"), 400, "INVALID_REQUEST");
    assertError(await post('{"command":"true"}'), 400, "INVALID_REQUEST");
  });

  test("a body over the limit is 413, declared or chunked", async () => {
    const big = JSON.stringify({ command: "true", args: ["x".repeat(100 * 1024)] });
    assertError(await post(big, "application/json"), 413, "PAYLOAD_TOO_LARGE");
    // Chunked: no length is declared, so the limit is met while reading.
    const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const path = "/api/v1/processes";
      const req = request(`${client.baseUrl}${path}`, {
        method: "POST",
        headers: client.headersFor("POST", path, { headers: { "content-type": "application/json" } }),
      });
      req.on("error", reject);
      req.on("response", (res) => {
        let body = "";
        res.on("data", (chunk) => {
          body += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      });
      req.write(big.slice(0, 50 * 1024));
      req.end(big.slice(50 * 1024));
    });
    assert.equal(chunked.status, 413);
    assert.equal(JSON.parse(chunked.body).code, "PAYLOAD_TOO_LARGE");
  });

  test("the success body is JSON with the route's status", async () => {
    const answer = await client.request("GET", "/api/v1/info");
    assert.equal(answer.status, 200);
    assert.match(answer.headers.get("content-type") ?? "", /^application\/json/);
    assert.equal(typeof answer.json.uptime_secs, "number");
  });
});
