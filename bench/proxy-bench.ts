/**
 * Proxy overhead for a small HTTP request to an exposed port: the same request made directly to the service and
 * through the sandbox proxy (`<port>-<id>.sandbox.localhost`, API key checked, headers rewritten, body piped).
 * The service listens on 127.0.0.1 and the sandbox row points at it, as the executor's would point at the
 * sandbox's address; the proxy path is the one every sandbox request takes.
 *
 *   npx node bench/proxy-bench.ts [--requests 3000] [--concurrency 16]
 *
 * Prints p50/p90 latency of sequential requests and requests per second at a given concurrency, direct and
 * through the proxy, with the added p50 and the ratios.
 */
import { once } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { startTestServer } from "../packages/server/src/testing.ts";

const { values } = parseArgs({
  options: { requests: { type: "string", default: "3000" }, concurrency: { type: "string", default: "16" } },
});
const REQUESTS = Number(values.requests);
const CONCURRENCY = Number(values.concurrency);

const service = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/plain", "content-length": "5" });
  res.end("hello");
});
service.listen(0, "127.0.0.1");
await once(service, "listening");
const servicePort = (service.address() as AddressInfo).port;

const server = await startTestServer({ executor: "none", parseWorkers: 0 });
const created = await fetch(`${server.url}/sandboxes`, {
  method: "POST",
  headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
  body: JSON.stringify({ exposed_ports: [servicePort] }),
});
const { sandbox_id: id } = (await created.json()) as { sandbox_id: string };
await server.sandboxes.repo.transition(id, ["pending"], {
  status: "running",
  executorId: "bench",
  containerId: "bench",
  address: "http://127.0.0.1:9501",
  startedAt: Date.now(),
});

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
function get(port: number, headers: Record<string, string>): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = http.request({ host: "127.0.0.1", port, path: "/", headers, agent }, (res) => {
      res.resume();
      res.on("end", () =>
        res.statusCode === 200
          ? resolve(performance.now() - started)
          : reject(new Error(`HTTP ${res.statusCode}`)),
      );
    });
    req.on("error", reject);
    req.end();
  });
}

const routes = {
  direct: () => get(servicePort, {}),
  proxy: () =>
    get(server.proxyPort, {
      host: `${servicePort}-${id}.sandbox.localhost`,
      authorization: `Bearer ${server.apiKey}`,
    }),
};

const pct = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const results: Record<string, { p50: number; p90: number; rps: number }> = {};
for (const [name, request] of Object.entries(routes)) {
  for (let i = 0; i < 200; i++) await request(); // warm-up: connections, JIT
  const times: number[] = [];
  for (let i = 0; i < REQUESTS; i++) times.push(await request());
  times.sort((a, b) => a - b);
  let done = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (done < REQUESTS) {
        done++;
        await request();
      }
    }),
  );
  const rps = REQUESTS / ((performance.now() - started) / 1000);
  results[name] = { p50: pct(times, 50), p90: pct(times, 90), rps };
  console.log(
    `${name.padEnd(7)} p50 ${pct(times, 50).toFixed(3)} ms  p90 ${pct(times, 90).toFixed(3)} ms  ${rps.toFixed(0)} req/s (concurrency ${CONCURRENCY})`,
  );
}
const { direct, proxy } = results;
console.log(
  `proxy adds ${(proxy.p50 - direct.p50).toFixed(3)} ms at p50 (target ≤ 1 ms); p50 ratio ${(proxy.p50 / direct.p50).toFixed(2)}×; req/s ratio ${(proxy.rps / direct.rps).toFixed(2)}`,
);

agent.destroy();
service.close();
await server.stop();
