import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import {
  addressesOf,
  allocateIndex,
  createNetwork,
  destroyNetwork,
  formatIpv4,
  hostInterfaceName,
  listNetworks,
  NetworkError,
  netnsName,
  netnsPath,
  parseIpv4,
  parseIpv4Cidr,
  poolCapacity,
  runTool,
} from "./network.ts";
import { missingNetworkRequirement } from "./network-testbed.ts";

describe("IPv4 helpers", () => {
  it("parses and formats addresses", () => {
    assert.equal(parseIpv4("10.213.0.1"), 0x0ad50001);
    assert.equal(formatIpv4(0x0ad50001), "10.213.0.1");
    assert.equal(formatIpv4(parseIpv4("255.255.255.255") as number), "255.255.255.255");
    for (const bad of ["10.213.0", "10.213.0.256", "10.213.0.01", " 10.0.0.1", "a.b.c.d", ""]) {
      assert.equal(parseIpv4(bad), null, bad);
    }
  });

  it("parses CIDRs, clearing host bits", () => {
    assert.deepEqual(parseIpv4Cidr("10.213.7.9/16"), { network: 0x0ad50000, prefixLength: 16 });
    assert.deepEqual(parseIpv4Cidr("0.0.0.0/0"), { network: 0, prefixLength: 0 });
    assert.deepEqual(parseIpv4Cidr("1.2.3.4"), { network: 0x01020304, prefixLength: 32 });
    for (const bad of ["1.2.3.4/33", "1.2.3.4/", "1.2.3.4/1/2", "1.2.3.4/-1", "1.2.3.4/08"]) {
      assert.equal(parseIpv4Cidr(bad), null, bad);
    }
  });
});

describe("pool and allocation", () => {
  it("splits the pool into /30s: host side first, sandbox second", () => {
    assert.equal(poolCapacity(), 16384);
    assert.deepEqual(addressesOf(0), {
      subnet: "10.213.0.0/30",
      hostIp: "10.213.0.1",
      sandboxIp: "10.213.0.2",
    });
    assert.deepEqual(addressesOf(16383), {
      subnet: "10.213.255.252/30",
      hostIp: "10.213.255.253",
      sandboxIp: "10.213.255.254",
    });
    assert.deepEqual(addressesOf(3, { pool: "172.31.8.0/24" }).hostIp, "172.31.8.13");
    assert.throws(() => addressesOf(16384), NetworkError);
    assert.throws(() => addressesOf(-1), NetworkError);
    assert.throws(() => poolCapacity({ pool: "10.0.0.0/31" }), NetworkError);
  });

  it("allocates the lowest free index, after a hint when given, and says when the pool is full", () => {
    assert.equal(allocateIndex([]), 0);
    assert.equal(allocateIndex([0, 1, 3]), 2);
    assert.equal(allocateIndex(new Set([0, 1, 2]), { after: 0 }), 3);
    assert.equal(allocateIndex([5], { after: 4 }), 6);
    assert.equal(allocateIndex([1, 2, 3], { pool: "10.0.0.0/28", after: 3 }), 0, "wraps around");
    assert.throws(() => allocateIndex([0, 1, 2, 3], { pool: "10.0.0.0/28" }), /full \(4\)/);
  });

  it("names things within the kernel's limits, and refuses ids that are not plain names", () => {
    assert.ok(hostInterfaceName(16383).length <= 15);
    assert.equal(netnsName("abc"), "svc-abc");
    assert.equal(netnsPath("abc"), "/run/netns/svc-abc");
    assert.throws(() => netnsName("../etc"), NetworkError);
    assert.throws(() => netnsName("a b"), NetworkError);
  });
});

const missing = missingNetworkRequirement();
if (missing && process.env.CI === "true") {
  it("has what the network tests need (CI)", () => assert.fail(`network tests cannot run: ${missing}`));
}

describe("sandbox networks on this host", {
  skip: missing ? `network tests skipped: ${missing}` : false,
}, () => {
  const made = new Map<string, number>();
  let counter = 0;
  const newId = () => `t${process.pid}n${++counter}`;
  async function freeIndex(): Promise<number> {
    return allocateIndex([...(await listNetworks()).indexes, ...made.values()], { after: 15999 });
  }

  after(async () => {
    for (const [id, index] of made) await destroyNetwork(id, index);
    const left = await listNetworks();
    for (const [id, index] of made) {
      assert.ok(!left.ids.includes(id), `namespace of ${id} removed`);
      assert.ok(!left.indexes.includes(index), `svch-${index} removed`);
    }
  });

  it("creates a namespace with its veth, addresses, routes and forwarding, and destroys it", async (t) => {
    const id = newId();
    const index = await freeIndex();
    made.set(id, index);
    const started = performance.now();
    const network = await createNetwork(id, index);
    const createMs = performance.now() - started;
    const { hostIp, sandboxIp } = addressesOf(index);
    assert.deepEqual(network, {
      netns: `svc-${id}`,
      hostIf: `svch-${index}`,
      hostIp,
      sandboxIp,
      prefixLength: 30,
      index,
    });
    assert.deepEqual(await listNetworks().then((l) => [l.ids.includes(id), l.indexes.includes(index)]), [
      true,
      true,
    ]);
    assert.equal(readFileSync(`/proc/sys/net/ipv4/conf/${network.hostIf}/forwarding`, "utf8").trim(), "1");
    const hostAddresses = JSON.parse(await runTool("ip", ["-j", "addr", "show", "dev", network.hostIf]));
    assert.deepEqual(
      hostAddresses[0].addr_info.map(
        (a: { local: string; prefixlen: number }) => `${a.local}/${a.prefixlen}`,
      ),
      [`${hostIp}/30`],
      "only the IPv4 address: IPv6 is off on the host side",
    );
    const inside = JSON.parse(await runTool("ip", ["-n", network.netns, "-j", "-4", "addr", "show"]));
    const byName = Object.fromEntries(
      inside.map((link: { ifname: string; operstate: string; addr_info: { local: string }[] }) => [
        link.ifname,
        link.addr_info.map((a) => a.local),
      ]),
    );
    assert.deepEqual(byName, { lo: ["127.0.0.1"], eth0: [sandboxIp] });
    const routes = JSON.parse(await runTool("ip", ["-n", network.netns, "-j", "route", "show", "default"]));
    assert.equal(routes[0].gateway, hostIp);

    await assert.rejects(createNetwork(newId(), index), /already exists/, "an index in use is refused");
    await assert.rejects(
      createNetwork(id, await freeIndex()),
      /already exists/,
      "a namespace in use is refused",
    );

    const destroyStarted = performance.now();
    await destroyNetwork(id, index);
    t.diagnostic(
      `create ${createMs.toFixed(1)} ms, destroy ${(performance.now() - destroyStarted).toFixed(1)} ms`,
    );
    assert.equal(existsSync(netnsPath(id)), false);
    assert.equal(existsSync(`/sys/class/net/${network.hostIf}`), false, "the veth is gone at once");
    await destroyNetwork(id, index); // idempotent
    await destroyNetwork(id);
  });

  it("destroys by namespace alone, the veth following shortly (and staying allocated until then)", async () => {
    const id = newId();
    const index = await freeIndex();
    made.set(id, index);
    await createNetwork(id, index);
    await destroyNetwork(id);
    assert.equal(existsSync(netnsPath(id)), false);
    // Until the kernel has cleaned up the namespace its veth may still be listed, and then is not reallocated.
    const deadline = Date.now() + 10_000;
    while ((await listNetworks()).indexes.includes(index)) {
      assert.notEqual(await freeIndex(), index);
      assert.ok(Date.now() < deadline, "the veth went away with its namespace");
      await sleep(50);
    }
  });
});
