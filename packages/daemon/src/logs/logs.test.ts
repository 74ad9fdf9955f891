import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import type { LogsResponse } from "@svc/contract/runtime";
import type { RunningDaemon } from "../daemon.ts";
import { type DaemonTestClient, startTestDaemon } from "../testing.ts";

describe("GET /api/v1/logs", () => {
  let daemon: RunningDaemon;
  let client: DaemonTestClient;
  const pids: number[] = [];

  before(async () => {
    ({ daemon, client } = await startTestDaemon());
    // Two processes whose lines interleave in time: a's first, b's, then a's last.
    for (const script of ["echo a1; echo a2 >&2; sleep 0.3; echo a3", "sleep 0.15; echo b1"]) {
      const started = await client.request("POST", "/api/v1/processes", {
        json: { command: "sh", args: ["-c", script] },
      });
      assert.equal(started.status, 201);
      pids.push((started.json as { pid: number }).pid);
    }
    for (const pid of pids) {
      for (let i = 0; i < 100; i++) {
        const info = await client.request("GET", `/api/v1/processes/${pid}`);
        if ((info.json as { status: string }).status !== "running") break;
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });
  after(() => daemon?.close());

  async function logs(query = ""): Promise<LogsResponse> {
    const response = await client.request("GET", `/api/v1/logs${query}`);
    assert.equal(response.status, 200, response.text);
    return response.json as LogsResponse;
  }

  test("every line of every process, in time order, with its process, stream and number", async () => {
    const all = await logs(`?pids=${pids.join(",")}`);
    assert.deepEqual(
      all.records.map((r) => r.line),
      ["a1", "a2", "b1", "a3"],
    );
    assert.deepEqual(
      all.records.map((r) => [r.pid, r.stream, r.seq]),
      [
        [pids[0], "stdout", 0],
        [pids[0], "stderr", 1],
        [pids[1], "stdout", 0],
        [pids[0], "stdout", 2],
      ],
    );
    assert.equal(all.matched, 4);
    const a = all.processes.find((p) => p.pid === pids[0]);
    assert.equal(a?.line_count, 3);
    assert.equal(a?.command, "sh");
    assert.ok((a?.first_seen ?? 0) <= (a?.last_seen ?? 0));
  });

  test("filters and cuts: pids, stream, contains, head with skip, tail", async () => {
    const only = `pids=${pids.join(",")}`;
    assert.deepEqual(
      (await logs(`?pids=${pids[1]}`)).records.map((r) => r.line),
      ["b1"],
    );
    assert.deepEqual(
      (await logs(`?${only}&stream=stderr`)).records.map((r) => r.line),
      ["a2"],
    );
    assert.deepEqual(
      (await logs(`?${only}&contains=3`)).records.map((r) => r.line),
      ["a3"],
    );
    const page = await logs(`?${only}&head=2&skip=1`);
    assert.deepEqual(
      page.records.map((r) => r.line),
      ["a2", "b1"],
    );
    assert.equal(page.matched, 4);
    assert.deepEqual(
      (await logs(`?${only}&tail=1`)).records.map((r) => r.line),
      ["a3"],
    );
  });

  test("bad queries are 400s; unsigned requests 401", async () => {
    for (const query of ["?head=0", "?tail=100000", "?pids=x", "?stream=both", "?bogus=1"]) {
      assert.equal((await client.request("GET", `/api/v1/logs${query}`)).status, 400, query);
    }
    assert.equal((await client.request("GET", "/api/v1/logs", { auth: false })).status, 401);
  });
});
