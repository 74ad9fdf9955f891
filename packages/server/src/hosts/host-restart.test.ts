import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { openStore, type Store } from "../store/store.ts";
import {
  type Cluster,
  type ClusterHost,
  callApi,
  cleanupsAfterAll,
  clusterSkip,
  createCluster,
  eventually,
} from "./cluster.testing.ts";

/**
 * A host of several on one machine (cluster.testing.ts: a server process in a network namespace of its own)
 * restarted while its sandboxes run: the sandboxes it adopts keep their network indexes, and the sandboxes it
 * starts after take free ones at the first try. Such a host makes its sandboxes' interfaces in its own namespace,
 * yet reads the machine's /sys/class/net, which does not list them.
 */

const databaseUrl = process.env.SVC_TEST_DATABASE_URL;
const skip = clusterSkip();
if (process.env.CI === "true" && skip) test("a host restarted", () => assert.fail(`cannot run: ${skip}`));

const cleanups = cleanupsAfterAll();

interface Row {
  status: string;
  executor_id: string | null;
  net_index: number | null;
  termination_reason: string | null;
  error_details: string | null;
}

test("a host restarted with live sandboxes starts new ones on free network indexes, at the first try", {
  skip,
  timeout: 600_000,
}, async () => {
  const cluster: Cluster = await createCluster({ databaseUrl: databaseUrl as string, names: ["a"] });
  cleanups.push(() => cluster.dispose());
  const [a] = cluster.hosts;
  const start = (host: ClusterHost) => cluster.start(host, "api,proxy,scheduler,executor");
  await start(a);
  const apiKey = readFileSync(path.join(a.dataDir, "api-key"), "utf8").trim();
  const store: Store = await openStore({ databaseUrl: cluster.localDatabaseUrl });
  cleanups.push(() => store.close());

  const call = (method: string, route: string, body?: unknown) => callApi(a, apiKey, method, route, body);
  const row = async (id: string) =>
    (
      await store.db.query<Row>(
        "SELECT status, executor_id, net_index, termination_reason, error_details FROM sandboxes WHERE id = ?",
        [id],
      )
    )[0];
  const createRunning = async (count: number) => {
    const ids: string[] = [];
    for (let i = 0; i < count; i++) {
      const { status, body } = await call("POST", "/sandboxes", {
        resources: { cpus: 0.25, memory_mb: 256 },
      });
      assert.equal(status, 200, JSON.stringify(body));
      ids.push(body.sandbox_id);
    }
    return Promise.all(
      ids.map(async (id) => {
        const running = await eventually(
          `sandbox ${id} running`,
          async () => {
            const found = await row(id);
            assert.notEqual(found.status, "terminated", JSON.stringify(found));
            return found.status === "running" ? found : undefined;
          },
          120_000,
        );
        return { id, netIndex: Number(running.net_index) };
      }),
    );
  };
  const answers = async (id: string) => {
    const response = await fetch(`http://${a.address}:${a.proxyPort}/sandboxes/${id}/api/v1/info`, {
      headers: { authorization: `Bearer ${apiKey}` },
    });
    return response.status;
  };

  const adopted = await createRunning(3);
  await cluster.kill(a, "SIGKILL");
  await start(a);
  for (const { id } of adopted) {
    assert.equal((await row(id)).status, "running", `${id} adopted`);
    assert.equal(await answers(id), 200, `${id} answers after the restart`);
  }

  const started = await createRunning(2);
  const indexes = [...adopted, ...started].map((s) => s.netIndex);
  assert.equal(new Set(indexes).size, indexes.length, `every sandbox on its own index: ${indexes}`);
  for (const { id } of started) {
    const { body } = await call("GET", `/sandboxes/${id}/start-timeline`);
    const tries = body.steps.filter((s: { step: string }) => s.step === "network.veth").length;
    assert.equal(tries, 1, `${id}'s network made at the first try: ${JSON.stringify(body.steps)}`);
  }
  for (const { id } of [...adopted, ...started]) assert.equal(await answers(id), 200, `${id} answers`);

  for (const { id } of [...adopted, ...started]) await call("DELETE", `/sandboxes/${id}`);
  await cluster.kill(a, "SIGTERM");
});
