/**
 * The sandboxes' name server: real sandboxes, the fake internet of the network tests, and a fake upstream name
 * server on 127.0.0.1; a server in this process. Run as root:
 *
 *   npx node bench/dns-bench.ts [--queries 200]
 *
 * Prints:
 * - DNS answer latency from inside a sandbox through its name server (which asks the upstream, and for a name a
 *   rule covers adds the answer to the sandbox's nft set first), p50 and p90, against the same query sent
 *   straight to the upstream from the host (ratio); then for names whose every answer is a new address (one nft
 *   call each, where a known address is not added again);
 * - connection set-up to an allowed name (resolve a new name, then TCP connect to the answer) in a sandbox with
 *   a policy (`allow_out: ["*.bench.test"]`, no internet) against a sandbox without one (ratio).
 */
import { execFile } from "node:child_process";
import { parseArgs, promisify } from "node:util";
import { Client } from "@svc/sdk";
import { buildQuery } from "../packages/server/src/executor/linux/dns-message.ts";
import { addressesOf, netnsPath } from "../packages/server/src/executor/linux/network.ts";
import {
  FAKE_DESTINATIONS,
  startFakeDns,
  startFakeInternet,
} from "../packages/server/src/executor/linux/network-testbed.ts";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({ options: { queries: { type: "string", default: "200" } } });
const QUERIES = Number(values.queries);
if (process.getuid?.() !== 0) {
  console.error("dns-bench: run as root (the local executor needs it)");
  process.exit(2);
}

/** Runs in a namespace (or on the host): N queries (and connects) one after another; prints ms per step. */
const CLIENT = `
const dgram = require("node:dgram"); const net = require("node:net");
const [server, port, count, connect, queries] = [process.argv[1], Number(process.argv[2]), Number(process.argv[3]), process.argv[4] === "1", JSON.parse(process.argv[5])];
const socket = dgram.createSocket("udp4");
const ask = (query) => new Promise((resolve) => { socket.once("message", resolve); socket.send(Buffer.from(query, "hex"), port, server); });
(async () => {
  const times = [];
  for (let i = 0; i < count; i++) {
    const start = performance.now();
    const answer = await ask(queries[i]);
    if (connect) {
      const address = [...answer.subarray(answer.length - 4)].join(".");
      await new Promise((resolve, reject) => { const s = net.connect(80, address, () => { s.destroy(); resolve(); }); s.on("error", reject); });
    }
    times.push(performance.now() - start);
  }
  console.log(JSON.stringify(times)); socket.close();
})();`;

const quantile = (xs: number[], q: number) => {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))] ?? Number.NaN;
};
const summary = (xs: number[]) =>
  `p50 ${quantile(xs, 0.5).toFixed(2)} ms  p90 ${quantile(xs, 0.9).toFixed(2)} ms`;

const names = new Map<string, string[]>();
/** Queries of new names; all answered with the first fake destination, or each with an address of its own. */
const queries = (prefix: string, own = false) =>
  Array.from({ length: QUERIES }, (_, i) => {
    const name = `${prefix}${i}.bench.test`;
    names.set(name, [own ? `10.214.${1 + Math.floor(i / 250)}.${1 + (i % 250)}` : FAKE_DESTINATIONS[0]]);
    return buildQuery(i + 1, name).toString("hex");
  });
const dns = await startFakeDns(names, new Map());
const inet = await startFakeInternet();
const server = await startTestServer({ executor: "local" }, { dnsUpstreams: [dns.address] });
try {
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  // Asynchronous: the name server answering these runs in this process.
  const run = async (
    sandboxId: string | null,
    host: string,
    port: number,
    connect: boolean,
    list: string[],
  ) => {
    const args = [
      "-e",
      CLIENT,
      host,
      String(port),
      String(list.length),
      connect ? "1" : "0",
      JSON.stringify(list),
    ];
    const { stdout } = sandboxId
      ? await promisify(execFile)("nsenter", [
          `--net=${netnsPath(sandboxId)}`,
          "--",
          process.execPath,
          ...args,
        ])
      : await promisify(execFile)(process.execPath, args);
    return JSON.parse(stdout) as number[];
  };
  const closed = await client.sandboxes.create({
    network: { allow_internet_access: false, allow_out: ["*.bench.test"] },
  });
  const open = await client.sandboxes.create({});
  for (const sandbox of [closed, open]) await sandbox.waitUntilRunning({ timeoutMs: 300_000 });
  const hostIp = async (id: string) =>
    addressesOf((await server.sandboxes.repo.get(id))?.netIndex as number).hostIp;
  const [upstreamHost, upstreamPort] = dns.address.split(":");

  const through = await run(closed.id, await hostIp(closed.id), 53, false, queries("a"));
  const direct = await run(null, upstreamHost, Number(upstreamPort), false, queries("b"));
  console.log(`DNS through the sandbox's name server        ${summary(through)}`);
  console.log(`DNS straight to the upstream, from the host  ${summary(direct)}`);
  console.log(
    `  ratio (p50)                                ${(quantile(through, 0.5) / quantile(direct, 0.5)).toFixed(2)}`,
  );
  const admitted = await run(closed.id, await hostIp(closed.id), 53, false, queries("e", true));
  console.log(`DNS of names with new addresses (nft adds)   ${summary(admitted)}`);

  const withPolicy = await run(closed.id, await hostIp(closed.id), 53, true, queries("c"));
  const without = await run(open.id, await hostIp(open.id), 53, true, queries("d"));
  console.log(`resolve + connect, policy on a wildcard      ${summary(withPolicy)}`);
  console.log(`resolve + connect, no policy                 ${summary(without)}`);
  console.log(
    `  ratio (p50)                                ${(quantile(withPolicy, 0.5) / quantile(without, 0.5)).toFixed(2)}`,
  );
  for (const sandbox of [closed, open]) await sandbox.delete();
} finally {
  await server.stop();
  await inet.close();
  dns.close();
}
