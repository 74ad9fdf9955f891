import assert from "node:assert/strict";
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { connect } from "node:net";
import { after, before, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { ServiceError } from "@svc/contract";
import {
  addResolvedAddresses,
  applyEgressPolicy,
  applyNftInSandbox,
  classifyHostname,
  parseDestination,
  parseEgressPolicy,
  renderEgressPolicy,
} from "./egress-policy.ts";
import { allocateIndex, createNetwork, destroyNetwork, listNetworks, runTool } from "./network.ts";
import {
  FAKE_DESTINATIONS,
  type FakeInternet,
  missingNetworkRequirement,
  probeFrom,
  startFakeInternet,
  startInNetns,
} from "./network-testbed.ts";

describe("egress destinations", () => {
  it("parses IPv4 addresses and CIDRs, clearing host bits", () => {
    assert.deepEqual(parseDestination("10.1.2.3"), { kind: "cidr", cidr: "10.1.2.3/32" });
    assert.deepEqual(parseDestination("10.1.2.3/8"), { kind: "cidr", cidr: "10.0.0.0/8" });
    assert.deepEqual(parseDestination("0.0.0.0/0"), { kind: "cidr", cidr: "0.0.0.0/0" });
    assert.deepEqual(parseDestination("255.255.255.255/32"), { kind: "cidr", cidr: "255.255.255.255/32" });
    assert.deepEqual(parseDestination("192.168.1.128/25"), { kind: "cidr", cidr: "192.168.1.128/25" });
  });

  it("refuses what only looks like an address", () => {
    for (const bad of [
      "300.1.1.1",
      "1.2.3.4/33",
      "1.2.3",
      "1.2.3.4.5",
      "010.0.0.1",
      "1.2.3.4/",
      "1.2.3.4/08",
      "1..2.3",
    ]) {
      assert.throws(() => parseDestination(bad), ServiceError, bad);
    }
  });

  it("parses hostnames and wildcards, lower-cased without the final dot", () => {
    assert.deepEqual(parseDestination("Example.COM."), { kind: "hostname", hostname: "example.com" });
    assert.deepEqual(parseDestination("*.pypi.org"), { kind: "hostname", hostname: "*.pypi.org" });
    assert.deepEqual(parseDestination("localhost"), { kind: "hostname", hostname: "localhost" });
    for (const bad of [
      "-a.com",
      "a-.com",
      "a..com",
      "exa_mple.com",
      "*",
      "a.*.com",
      `${"a".repeat(64)}.com`,
    ]) {
      assert.throws(() => parseDestination(bad), ServiceError, bad);
    }
  });

  it("reports the field and position of a bad entry", () => {
    assert.throws(
      () => parseEgressPolicy({ allow_out: ["10.0.0.1"], deny_out: ["ok.example", "999.0.0.1"] }),
      (error: ServiceError) =>
        error.code === "INVALID_REQUEST" && /network\.deny_out\[1\]/.test(error.message),
    );
  });

  it("matches hostnames: exact names, and wildcards below (not at) the apex; deny wins", () => {
    const rules = parseEgressPolicy({
      allow_out: ["example.com", "*.pypi.org", "files.evil.org"],
      deny_out: ["*.evil.org"],
    });
    assert.ok(rules);
    assert.equal(classifyHostname(rules, "EXAMPLE.com."), "allow");
    assert.equal(classifyHostname(rules, "www.example.com"), null);
    assert.equal(classifyHostname(rules, "files.pypi.org"), "allow");
    assert.equal(classifyHostname(rules, "pypi.org"), null);
    assert.equal(classifyHostname(rules, "files.evil.org"), "deny");
  });
});

describe("renderEgressPolicy", () => {
  it("renders no policy as a table that only tracks connections", () => {
    assert.equal(parseEgressPolicy(null), null);
    assert.equal(
      renderEgressPolicy(null),
      [
        "table inet sbx {}",
        "delete table inet sbx",
        "table inet sbx {",
        "  chain output {",
        "    type filter hook output priority filter; policy accept;",
        "    ct state established,related accept",
        "  }",
        "}",
        "",
      ].join("\n"),
    );
  });

  it("allows everything but deny_out by default", () => {
    const rules = parseEgressPolicy({ deny_out: ["10.0.0.0/8", "10.0.0.0/8", "bad.example"] });
    assert.deepEqual(rules, {
      internet: true,
      allow: { cidrs: [], hostnames: [] },
      deny: { cidrs: ["10.0.0.0/8"], hostnames: ["bad.example"] },
    });
    const text = renderEgressPolicy(rules, { resolvers: ["10.213.0.1"] });
    assert.match(text, /^table inet sbx \{\}\ndelete table inet sbx\ntable inet sbx \{/);
    assert.match(text, /policy accept;/);
    assert.match(
      text,
      /set deny4 \{ type ipv4_addr; flags interval; auto-merge; elements = \{ 10\.0\.0\.0\/8 \} \}/,
    );
    assert.match(text, /set allow4 \{ type ipv4_addr; flags interval; auto-merge; \}/);
    // With a policy, no name server but the sandbox's own.
    assert.match(text, /ip daddr != 10\.213\.0\.1 meta l4proto \{ tcp, udp \} th dport 53 reject/);
    assert.doesNotMatch(text, /@allow4/);
  });

  it("allows only allow_out without internet access, deny_out first, then DNS to the resolver", () => {
    const rules = parseEgressPolicy({
      allow_internet_access: false,
      allow_out: ["1.2.3.4", "10.0.0.0/8", "api.example.com"],
      deny_out: ["10.9.0.0/16"],
    });
    const text = renderEgressPolicy(rules, { resolvers: ["10.213.0.1"] });
    assert.match(text, /policy drop;/);
    assert.match(text, /elements = \{ 1\.2\.3\.4\/32, 10\.0\.0\.0\/8 \}/);
    const order = [
      "ct state established,related accept",
      "@deny4",
      "@dyndeny4",
      "th dport 53 accept",
      "@allow4",
      "@dyn4",
    ];
    const positions = order.map((needle) => text.indexOf(needle));
    assert.deepEqual(
      [...positions].sort((a, b) => a - b),
      positions,
      "rules in order",
    );
    assert.ok(positions.every((position) => position > 0));
    assert.match(text, /ip daddr @dyn4 accept\n {4}reject with icmpx type admin-prohibited\n/);
    // The sandbox's own name server only: DNS to any other is refused (no exfiltration through names).
    assert.match(text, /ip daddr != 10\.213\.0\.1 meta l4proto \{ tcp, udp \} th dport 53 reject/);
  });

  it("leaves DNS out without a resolver", () => {
    const text = renderEgressPolicy(parseEgressPolicy({ allow_internet_access: false }));
    assert.doesNotMatch(text, /dport 53/);
    assert.throws(() => renderEgressPolicy(parseEgressPolicy({}), { resolvers: ["not-an-ip"] }));
  });
});

const missing = missingNetworkRequirement();
if (missing && process.env.CI === "true") {
  it("has what the egress tests need (CI)", () => assert.fail(`egress tests cannot run: ${missing}`));
}

describe("egress policy in a real namespace", {
  skip: missing ? `egress tests skipped: ${missing}` : false,
}, () => {
  const id = `t${process.pid}e`;
  let index = -1;
  let sandboxIp = "";
  let inet: FakeInternet | undefined;
  const children: ChildProcess[] = [];
  const [one, two, three, four] = FAKE_DESTINATIONS;
  const http = (host: string) => ({ host, port: 80 });

  before(async () => {
    inet = await startFakeInternet();
    index = allocateIndex((await listNetworks()).indexes, { after: 15999 });
    ({ sandboxIp } = await createNetwork(id, index));
  });

  after(async () => {
    for (const child of children) child.kill("SIGKILL");
    if (index >= 0) await destroyNetwork(id, index);
    await inet?.close();
    const left = await listNetworks();
    assert.ok(!left.ids.includes(id), "namespace removed");
    assert.ok(!left.indexes.includes(index), "veth removed");
  });

  /** Asserts each result: true reachable, false refused at once (never a time-out). */
  async function expectReach(expected: Record<string, boolean>): Promise<void> {
    const hosts = Object.keys(expected);
    const results = await probeFrom(id, hosts.map(http));
    hosts.forEach((host, i) => {
      const result = results[i];
      if (expected[host]) assert.ok(result.ok, `${host} reachable: ${JSON.stringify(result)}`);
      else {
        assert.ok(!result.ok, `${host} blocked: ${JSON.stringify(result)}`);
        assert.notEqual(result.error, "TIMEOUT", `${host} rejected, not dropped`);
        assert.ok(result.ms < 1000, `${host} rejected at once (${result.ms} ms)`);
      }
    });
  }

  async function ruleset(): Promise<string> {
    return runTool("nsenter", [`--net=/run/netns/svc-${id}`, "--", "nft", "list", "ruleset"]);
  }

  it("reaches the fake internet without a policy", async () => {
    await applyEgressPolicy(id, null);
    await expectReach({ [one]: true, [two]: true });
    assert.doesNotMatch(await ruleset(), /reject|drop/);
  });

  it("allows only allow_out without internet access", async (t) => {
    const started = performance.now();
    await applyEgressPolicy(id, { allow_internet_access: false, allow_out: [one] });
    t.diagnostic(`policy applied in ${(performance.now() - started).toFixed(1)} ms`);
    await expectReach({ [one]: true, [two]: false });
  });

  it("lets deny_out win over allow_out, with or without internet access", async () => {
    await applyEgressPolicy(id, {
      allow_internet_access: false,
      allow_out: ["10.214.0.0/24"],
      deny_out: [two],
    });
    await expectReach({ [one]: true, [two]: false, [three]: true });
    await applyEgressPolicy(id, { deny_out: [three, "10.214.0.4/31"] });
    await expectReach({ [one]: true, [two]: true, [three]: false, [four]: false });
  });

  it("follows the resolver's answers for hostnames, until their TTL runs out", async () => {
    const rules = await applyEgressPolicy(id, {
      allow_internet_access: false,
      allow_out: ["fake.test", "*.cdn.test"],
      deny_out: ["blocked.cdn.test"],
    });
    await expectReach({ [one]: false, [three]: false });
    assert.equal(await addResolvedAddresses(id, rules, "fake.test", [three, "2001:db8::1"], 1), "allow");
    assert.equal(await addResolvedAddresses(id, rules, "a.cdn.test", [one], 30), "allow");
    assert.equal(await addResolvedAddresses(id, rules, "a.cdn.test", [one], 60), "allow", "refreshing works");
    assert.equal(await addResolvedAddresses(id, rules, "other.test", [two], 30), null);
    await expectReach({ [one]: true, [two]: false, [three]: true });
    assert.equal(await addResolvedAddresses(id, rules, "blocked.cdn.test", [one], 30), "deny");
    await expectReach({ [one]: false });
    await sleep(1300);
    await expectReach({ [three]: false });
  });

  it("resolves exact hostnames on the host when it applies a policy; a name that does not resolve changes nothing", async () => {
    const names: Record<string, string[]> = {
      "api.fake.test": [one, "2001:db8::1"],
      "blocked.fake.test": [two],
      "v6only.fake.test": ["2001:db8::2"],
    };
    const lookup = async (hostname: string) => {
      const found = names[hostname];
      if (!found) throw Object.assign(new Error(`no ${hostname}`), { code: "ENOTFOUND" });
      return found;
    };
    // Two name servers: nft takes them as one anonymous set.
    const resolvers = ["10.213.0.1", "10.213.0.2"];
    await applyEgressPolicy(
      id,
      { allow_internet_access: false, allow_out: ["api.fake.test"] },
      { lookup, resolvers },
    );
    await expectReach({ [one]: true, [two]: false, [three]: false });
    assert.match(
      await ruleset(),
      /ip daddr \{ 10\.213\.0\.1, 10\.213\.0\.2 \} meta l4proto \{ tcp, udp \} th dport 53 accept/,
    );
    await applyEgressPolicy(id, { deny_out: ["blocked.fake.test"] }, { lookup });
    await expectReach({ [one]: true, [two]: false, [three]: true });
    const before = await ruleset();
    await assert.rejects(
      applyEgressPolicy(id, { allow_internet_access: false, allow_out: ["gone.fake.test"] }, { lookup }),
      (error: ServiceError) =>
        error.code === "INVALID_REQUEST" && /gone\.fake\.test does not resolve/.test(error.message),
    );
    await assert.rejects(
      applyEgressPolicy(id, { deny_out: ["v6only.fake.test"] }, { lookup }),
      (error: ServiceError) => error.code === "INVALID_REQUEST" && /no IPv4 address/.test(error.message),
    );
    assert.equal(await ruleset(), before, "the policy in force stays");
    await expectReach({ [one]: true, [two]: false });
  });

  it("changes nothing when the file has an error, or the policy is bad", async () => {
    await applyEgressPolicy(id, { allow_internet_access: false, allow_out: [one] });
    const before = await ruleset();
    const broken = renderEgressPolicy(parseEgressPolicy({ allow_out: [two] })).replace(
      "policy accept",
      "policy maybe",
    );
    await assert.rejects(applyNftInSandbox(id, broken), /nft/);
    await assert.rejects(applyEgressPolicy(id, { allow_out: ["1.2.3.400"] }), ServiceError);
    assert.equal(await ruleset(), before);
    await expectReach({ [one]: true, [two]: false });
  });

  it("keeps an established connection across a policy swap", async () => {
    await applyEgressPolicy(id, null);
    const client = await startInNetns(
      `/run/netns/svc-${id}`,
      `const socket = require("node:net").connect(7, process.argv[1], () => console.log("connected"));
       socket.setEncoding("utf8").on("data", (data) => console.log("echo " + data.trim()));
       process.stdin.setEncoding("utf8").on("data", (line) => socket.write(line));`,
      [one],
    );
    children.push(client);
    const lines: string[] = [];
    client.stdout?.on("data", (chunk: string) => lines.push(...chunk.split("\n").filter(Boolean)));
    await applyEgressPolicy(id, { allow_internet_access: false });
    await expectReach({ [one]: false });
    client.stdin?.write("still-here\n");
    const deadline = Date.now() + 3000;
    while (!lines.includes("echo still-here") && Date.now() < deadline) await sleep(10);
    assert.ok(lines.includes("echo still-here"), `echo through the old connection: ${lines.join(" | ")}`);
    client.kill("SIGKILL");
  });

  it("still lets the host reach a server in the sandbox under the strictest policy", async () => {
    const server = await startInNetns(
      `/run/netns/svc-${id}`,
      `require("node:net").createServer((s) => s.end("daemon")).listen(9501, "0.0.0.0", () => console.log("ready"));`,
    );
    children.push(server);
    await applyEgressPolicy(id, { allow_internet_access: false, deny_out: ["0.0.0.0/0"] });
    const socket = connect(9501, sandboxIp);
    let body = "";
    socket.setEncoding("utf8").on("data", (chunk: string) => {
      body += chunk;
    });
    await once(socket, "end");
    assert.equal(body, "daemon");
    server.kill("SIGKILL");
  });

  it("removes the policy again", async () => {
    await applyEgressPolicy(id, null);
    assert.doesNotMatch(await ruleset(), /reject|drop|set /);
    await expectReach({ [one]: true, [two]: true });
    assert.equal(await inet?.guardDrops(), 0, "nothing tried to leave the machine");
  });
});
