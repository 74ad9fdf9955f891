import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { connect, createServer, type Server } from "node:net";
import { after, before, describe, it } from "node:test";
import { applyEgressPolicy } from "./egress-policy.ts";
import {
  hostFirewallInstalled,
  installHostFirewall,
  removeHostFirewall,
  renderHostFirewall,
} from "./host-firewall.ts";
import {
  allocateIndex,
  createNetwork,
  destroyNetwork,
  listNetworks,
  netnsPath,
  runTool,
  type SandboxNetwork,
} from "./network.ts";
import {
  FAKE_DESTINATIONS,
  FAKE_INET_HOST_IP,
  FAKE_INET_LINK,
  type FakeInternet,
  missingNetworkRequirement,
  type ProbeResult,
  probeFrom,
  startFakeInternet,
  startInNetns,
} from "./network-testbed.ts";

describe("renderHostFirewall", () => {
  it("renders one replaceable table with the protections", () => {
    const text = renderHostFirewall({ uplinks: ["eth0"], resolverPort: 53 });
    assert.match(text, /^table inet svc_host \{\}\ndelete table inet svc_host\ntable inet svc_host \{/);
    assert.match(text, /iifname "svch-\*" jump from_sandbox/);
    assert.match(text, /ct state established,related accept\n.*th dport 53 accept\n\s+reject/);
    assert.match(text, /ip daddr 10\.213\.0\.0\/16 meta l4proto \{ tcp, udp \} th dport 53 accept/);
    assert.match(text, /oifname "svch-\*" reject with icmpx type admin-prohibited/);
    assert.match(text, /ip daddr 169\.254\.0\.0\/16 reject/);
    assert.match(text, /ip saddr 10\.213\.0\.0\/16 oifname \{ "eth0" \} masquerade/);
  });

  it("masquerades on every non-sandbox interface without uplinks, and opens no port without a resolver", () => {
    const text = renderHostFirewall({ uplinks: [], pool: "10.99.1.2/16", table: "t1" });
    assert.match(text, /ip saddr 10\.99\.0\.0\/16 oifname != "svch-\*" masquerade/);
    assert.doesNotMatch(text, /dport/);
  });

  it("refuses names that would break or inject into the file", () => {
    assert.throws(() => renderHostFirewall({ uplinks: ['eth0" accept'] }));
    assert.throws(() => renderHostFirewall({ uplinks: [], table: "x; flush ruleset" }));
    assert.throws(() => renderHostFirewall({ uplinks: [], pool: "10.0.0.0/33" }));
    assert.throws(() => renderHostFirewall({ uplinks: [], resolverPort: 70000 }));
  });
});

const missing = missingNetworkRequirement();
if (missing && process.env.CI === "true") {
  it("has what the host firewall tests need (CI)", () =>
    assert.fail(`host firewall tests cannot run: ${missing}`));
}

describe("host protection against sandboxes", {
  skip: missing ? `host firewall tests skipped: ${missing}` : false,
}, () => {
  const table = `svct_host_${process.pid}`;
  const ids = [`t${process.pid}a`, `t${process.pid}b`];
  const networks: SandboxNetwork[] = [];
  const children: ChildProcess[] = [];
  let inet: FakeInternet | undefined;
  let hostService: Server | undefined;
  let resolverStandIn: Server | undefined;
  let hostPort = 0;
  let resolverPort = 0;

  async function listen(): Promise<[Server, number]> {
    const server = createServer((socket) => socket.end("host service\n"));
    server.listen(0, "0.0.0.0");
    await once(server, "listening");
    const address = server.address();
    assert.ok(address && typeof address === "object");
    return [server, address.port];
  }

  // A server's own table (svc_host) on this machine would add its rules to every sandbox interface and hide what
  // this suite's table does: it is taken down for the suite and put back after (tests run one file at a time).
  let productionTable = false;

  before(async () => {
    productionTable = await hostFirewallInstalled();
    if (productionTable) await removeHostFirewall();
    inet = await startFakeInternet();
    [hostService, hostPort] = await listen();
    [resolverStandIn, resolverPort] = await listen();
    const used = (await listNetworks()).indexes;
    for (const id of ids) {
      const index = allocateIndex([...used, ...networks.map((n) => n.index)], { after: 15999 });
      networks.push(await createNetwork(id, index));
      await applyEgressPolicy(id, null);
    }
    // Sandbox b serves on all its addresses.
    children.push(
      await startInNetns(
        netnsPath(ids[1]),
        `require("node:net").createServer((s) => s.end("sandbox b\\n")).listen(8080, "0.0.0.0", () => console.log("ready"));`,
      ),
    );
  });

  after(async () => {
    if (productionTable) await installHostFirewall();
    for (const child of children) child.kill("SIGKILL");
    hostService?.close();
    resolverStandIn?.close();
    await removeHostFirewall(table);
    for (const [i, network] of networks.entries()) await destroyNetwork(ids[i], network.index);
    await inet?.close();
    assert.equal(await hostFirewallInstalled(table), false);
    const left = await listNetworks();
    for (const [i, network] of networks.entries()) {
      assert.ok(!left.ids.includes(ids[i]), `${network.netns} removed`);
      assert.ok(!left.indexes.includes(network.index), `${network.hostIf} removed`);
    }
  });

  function assertRejected(result: ProbeResult, what: string): void {
    assert.ok(!result.ok, `${what} must be blocked: ${JSON.stringify(result)}`);
    assert.notEqual(result.error, "TIMEOUT", `${what} is rejected, not dropped`);
    assert.ok(result.ms < 1000, `${what} rejected at once (${result.ms} ms)`);
  }

  it("is needed: without it a sandbox reaches a host service on 0.0.0.0 and another sandbox", async () => {
    const [a, b] = networks;
    const [toHost, toSandbox] = await probeFrom(ids[0], [
      { host: a.hostIp, port: hostPort },
      { host: b.sandboxIp, port: 8080 },
    ]);
    assert.ok(toHost.ok && toHost.body === "host service\n", JSON.stringify(toHost));
    assert.ok(toSandbox.ok && toSandbox.body === "sandbox b\n", JSON.stringify(toSandbox));
  });

  it("installs idempotently", async (t) => {
    const options = { table, uplinks: [FAKE_INET_LINK], resolverPort };
    const started = performance.now();
    await installHostFirewall(options);
    t.diagnostic(`installed in ${(performance.now() - started).toFixed(1)} ms`);
    const first = await runTool("nft", ["list", "table", "inet", table]);
    await installHostFirewall(options);
    assert.equal(await runTool("nft", ["list", "table", "inet", table]), first);
    assert.ok(await hostFirewallInstalled(table));
  });

  it("keeps a sandbox from the host's services, other sandboxes and link-local addresses", async (t) => {
    const [a, b] = networks;
    const results = await probeFrom(ids[0], [
      { host: a.hostIp, port: hostPort },
      { host: b.hostIp, port: hostPort },
      { host: FAKE_INET_HOST_IP, port: hostPort },
      { host: b.sandboxIp, port: 8080 },
      { host: "169.254.169.254", port: 80 },
      { host: "169.254.1.1", port: 443 },
    ]);
    const names = [
      "own host side",
      "other host side",
      "another host address",
      "sandbox b",
      "metadata",
      "link-local",
    ];
    for (const [i, result] of results.entries()) assertRejected(result, names[i]);
    // Where the host has a route there, the kernel would forward to the metadata address (asked without sending
    // anything): then the firewall is what refused it.
    const lookup = ["-j", "route", "get", "169.254.169.254", "from", a.sandboxIp, "iif", a.hostIf];
    const routes = await runTool("ip", lookup).catch(() => null);
    if (routes === null) t.diagnostic("no route to 169.254.169.254 on this host: routing alone refuses it");
    else {
      const [route] = JSON.parse(routes) as { dev?: string; type?: string }[];
      assert.ok(route.dev && route.dev !== a.hostIf && route.type !== "unreachable", routes);
    }
  });

  it("still lets a sandbox out to the internet, masqueraded, and to the resolver port", async () => {
    const [a] = networks;
    const [internet, resolver] = await probeFrom(ids[0], [
      { host: FAKE_DESTINATIONS[0], port: 80 },
      { host: a.hostIp, port: resolverPort },
    ]);
    assert.ok(internet.ok, JSON.stringify(internet));
    assert.equal(
      internet.body,
      `${FAKE_DESTINATIONS[0]} ${FAKE_INET_HOST_IP}`,
      "the fake internet sees the host",
    );
    assert.ok(resolver.ok && resolver.body === "host service\n", JSON.stringify(resolver));
  });

  it("still lets the host reach a sandbox, and nothing ever left the machine", async () => {
    const socket = connect(8080, networks[1].sandboxIp);
    let body = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    await once(socket, "end");
    assert.equal(body, "sandbox b\n");
    assert.equal(await inet?.guardDrops(), 0);
  });
});
