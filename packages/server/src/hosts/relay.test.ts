import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import net from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createSandboxRepository, pendingSandbox } from "../sandboxes/repository.ts";
import { openStore } from "../store/store.ts";
import { createExecutorRegistry } from "./registry.ts";
import { clusterSecret, createRelayServer, createSandboxDialer, preambleLine } from "./relay.ts";

/** What the peer receives after sending `bytes`, until the relay or the echo closes. */
async function exchange(port: number, bytes: string): Promise<string> {
  const socket = net.connect(port, "127.0.0.1");
  await once(socket, "connect");
  socket.end(bytes);
  let got = "";
  socket.on("data", (chunk) => {
    got += chunk;
  });
  await once(socket, "close");
  return got;
}

test("the host relay serves signed peers to this executor's running sandboxes, and nothing else", async (t) => {
  const dataDir = await mkdtemp(join(tmpdir(), "svc-relay-test-"));
  const store = await openStore({ dataDir });
  // A "sandbox": an echo server on loopback standing for the daemon's port.
  const echo = net.createServer({ allowHalfOpen: true }, (socket) => socket.pipe(socket));
  echo.listen(0, "127.0.0.1");
  await once(echo, "listening");
  const echoPort = (echo.address() as net.AddressInfo).port;
  const secret = await clusterSecret(store.settings);
  const repo = createSandboxRepository(store.db);
  const relay = createRelayServer({ secret, executorId: "local-a", repo });
  relay.listen(0, "127.0.0.1");
  await once(relay, "listening");
  const relayPort = (relay.address() as net.AddressInfo).port;
  t.after(async () => {
    relay.close();
    echo.close();
    await store.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const org = await store.projects.ensureOrganization("default");
  const project = await store.projects.create(org.id, "p");
  const mine = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 256, diskMb: 256 });
  const elsewhere = pendingSandbox({ projectId: project.id, cpus: 1, memoryMb: 256, diskMb: 256 });
  for (const [row, executorId] of [
    [mine, "local-a"],
    [elsewhere, "local-b"],
  ] as const) {
    await repo.insert({ ...row, status: "running", executorId, address: `http://127.0.0.1:${echoPort}` });
  }

  // Through the dialer, as a proxy on another host does.
  const registry = createExecutorRegistry(store.db);
  await registry.register({
    id: "local-a",
    hostId: "a",
    relayAddress: `127.0.0.1:${relayPort}`,
    cpus: 1,
    memoryMb: 1,
  });
  const dialer = createSandboxDialer({ secret, registry, localExecutorId: "local-b" });
  const minedRow = await repo.get(mine.id);
  assert.ok(minedRow && dialer.isRemote(minedRow));
  const socket = await dialer.connect(minedRow, echoPort);
  socket.end("hello through the relay");
  let got = "";
  socket.on("data", (chunk) => {
    got += chunk;
  });
  await once(socket, "close");
  assert.equal(got, "hello through the relay");

  const line = preambleLine(secret, { sandboxId: mine.id, port: echoPort, executorId: "local-a" });
  assert.equal(await exchange(relayPort, `${line}ping`), "ping", "a signed peer gets through");
  assert.equal(await exchange(relayPort, `${line}ping`), "", "the same preamble again is a replay");
  const stranger = Buffer.alloc(32, 7);
  const forged = preambleLine(stranger, { sandboxId: mine.id, port: echoPort, executorId: "local-a" });
  assert.equal(await exchange(relayPort, `${forged}ping`), "", "a wrong secret");
  const other = preambleLine(secret, { sandboxId: elsewhere.id, port: echoPort, executorId: "local-a" });
  assert.equal(await exchange(relayPort, `${other}ping`), "", "a sandbox of another executor");
  const stale = preambleLine(
    secret,
    { sandboxId: mine.id, port: echoPort, executorId: "local-a" },
    Date.now() - 120_000,
  );
  assert.equal(await exchange(relayPort, `${stale}ping`), "", "an old preamble");
  assert.equal(await exchange(relayPort, `GET / HTTP/1.1\r\nHost: x\r\n\r\n`), "", "plain HTTP");
  await repo.transition(mine.id, ["running"], { status: "terminated" });
  const ended = preambleLine(secret, { sandboxId: mine.id, port: echoPort, executorId: "local-a" });
  assert.equal(await exchange(relayPort, `${ended}ping`), "", "a sandbox that ended");
});
