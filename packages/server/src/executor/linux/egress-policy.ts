/**
 * # egress-policy
 *
 * A sandbox's outbound rules (the contract's SandboxNetworkAccessControl) as one nftables table `inet sbx`
 * inside the sandbox's network namespace, where the sandbox user (no CAP_NET_ADMIN) cannot touch it.
 *
 * - `null` (no policy): a table that lets everything out; only the host protection (host-firewall.ts) applies.
 *   It still tracks connections: conntrack runs in a namespace only while a rule uses it, and a connection it
 *   did not see open would look new, and be cut, under the first restrictive policy.
 * - `allow_internet_access` true (the default): everything goes out except `deny_out`.
 * - `allow_internet_access` false: nothing goes out except `allow_out`, minus `deny_out`.
 * - `deny_out` wins over `allow_out`. Replies to connections already open always pass, so a policy swap never
 *   cuts an established connection.
 * - IPv4 addresses and CIDRs go into interval sets (`allow4`, `deny4`). An exact hostname (`example.com`) is
 *   resolved by the host when the policy is applied, and its addresses join the same sets (`resolveHostnames`);
 *   a name that does not resolve fails the apply. From then on the sandbox's own name server
 *   (sandbox-resolver.ts) adds the addresses it answers with, for exact names and wildcards (`*.example.com`,
 *   every name below it, not the apex) alike, to `dyn4` (allowed names) or `dyndeny4` (denied names), with the
 *   record's TTL as timeout (`addResolvedAddresses`), before the answer reaches the sandbox.
 * - With a resolver given (the sandbox's name server), DNS to it is allowed even without internet access, and
 *   DNS to any other server is refused.
 * - IPv6 goes nowhere but lo when internet access is off (sandboxes have no IPv6 route anyway).
 *
 * The file starts with the delete-table idiom (`flush table` would keep old set elements), so `nft -f` swaps the
 * whole policy in one transaction, and a file with an error changes nothing.
 */
import type { SandboxNetworkAccessControl } from "@svc/contract";
import { ServiceError } from "@svc/contract";
import { formatCidr, formatIpv4, netnsPath, parseIpv4, parseIpv4Cidr, runTool } from "./network.ts";

export const EGRESS_TABLE = "sbx";

/** The parsed policy: CIDRs normalized (host bits cleared), hostnames lower-cased without a trailing dot. */
export interface EgressRules {
  internet: boolean;
  allow: { cidrs: string[]; hostnames: string[] };
  deny: { cidrs: string[]; hostnames: string[] };
}

export interface EgressRenderOptions {
  /** Addresses of the name servers the sandbox uses: DNS to them is allowed even without internet access. */
  resolvers?: string[];
}

/** The IPv4 addresses a hostname resolves to on the host; rejects when it does not resolve. */
export type HostLookup = (hostname: string) => Promise<string[]>;

export type EgressDestination = { kind: "cidr"; cidr: string } | { kind: "hostname"; hostname: string };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

/**
 * Classifies one `allow_out`/`deny_out` entry: an IPv4 address or CIDR (host bits cleared: `10.1.2.3/8` is
 * `10.0.0.0/8`), or a hostname, optionally `*.`-prefixed. Throws a ServiceError INVALID_REQUEST otherwise, e.g.
 * for `300.1.1.1`, `1.2.3.4/33` or a bare `1.2.3`.
 */
export function parseDestination(text: string): EgressDestination {
  const value = text.trim();
  if (/^[\d./]+$/.test(value)) {
    const cidr = parseIpv4Cidr(value);
    if (!cidr)
      throw new ServiceError("INVALID_REQUEST", `not a valid IPv4 address or CIDR: ${JSON.stringify(text)}`);
    return { kind: "cidr", cidr: formatCidr(cidr) };
  }
  const hostname = value.toLowerCase().replace(/\.$/, "");
  const labels = (hostname.startsWith("*.") ? hostname.slice(2) : hostname).split(".");
  const valid =
    hostname.length <= 253 &&
    labels.every((label) => LABEL.test(label)) &&
    !/^\d+$/.test(labels[labels.length - 1] ?? "");
  if (!valid)
    throw new ServiceError(
      "INVALID_REQUEST",
      `not a valid hostname, IPv4 address or CIDR: ${JSON.stringify(text)}`,
    );
  return { kind: "hostname", hostname };
}

function parseList(list: string[] | undefined, field: string): { cidrs: string[]; hostnames: string[] } {
  const cidrs = new Set<string>();
  const hostnames = new Set<string>();
  for (const [index, entry] of (list ?? []).entries()) {
    let destination: EgressDestination;
    try {
      destination = parseDestination(entry);
    } catch (error) {
      throw new ServiceError("INVALID_REQUEST", `network.${field}[${index}]: ${(error as Error).message}`);
    }
    if (destination.kind === "cidr") cidrs.add(destination.cidr);
    else hostnames.add(destination.hostname);
  }
  return { cidrs: [...cidrs], hostnames: [...hostnames] };
}

/** Parses and validates a policy; null (no policy) stays null. Throws ServiceError INVALID_REQUEST on bad input. */
export function parseEgressPolicy(
  policy: SandboxNetworkAccessControl | null | undefined,
): EgressRules | null {
  if (!policy) return null;
  return {
    internet: policy.allow_internet_access ?? true,
    allow: parseList(policy.allow_out, "allow_out"),
    deny: parseList(policy.deny_out, "deny_out"),
  };
}

/**
 * The API's check of a policy in a create or PATCH body: every entry parses (exact names, `*.` wildcards,
 * addresses and CIDRs). Throws ServiceError INVALID_REQUEST naming the entry.
 */
export function checkNetworkPolicy(policy: SandboxNetworkAccessControl | null | undefined): void {
  parseEgressPolicy(policy);
}

/** Whether `hostname` falls under `pattern` (`example.com` exactly, `*.example.com` any name below it). */
export function hostnameMatches(pattern: string, hostname: string): boolean {
  const name = hostname.toLowerCase().replace(/\.$/, "");
  if (pattern.startsWith("*.")) return name.endsWith(pattern.slice(1));
  return name === pattern;
}

/** Which dynamic list a resolved name's addresses belong in: deny wins; null when no rule names it. */
export function classifyHostname(rules: EgressRules, hostname: string): "allow" | "deny" | null {
  if (rules.deny.hostnames.some((pattern) => hostnameMatches(pattern, hostname))) return "deny";
  if (rules.allow.hostnames.some((pattern) => hostnameMatches(pattern, hostname))) return "allow";
  return null;
}

const FILTER_OUTPUT = "    type filter hook output priority filter;";
const ESTABLISHED = "ct state established,related accept";

function set(name: string, cidrs: string[], flags: string): string {
  const elements = cidrs.length > 0 ? ` elements = { ${cidrs.join(", ")} }` : "";
  return `  set ${name} { type ipv4_addr; flags ${flags};${elements} }`;
}

/**
 * The nft file that makes the sandbox's namespace enforce `rules` (for null, let everything out). Pure.
 */
export function renderEgressPolicy(rules: EgressRules | null, options: EgressRenderOptions = {}): string {
  const head = [`table inet ${EGRESS_TABLE} {}`, `delete table inet ${EGRESS_TABLE}`];
  if (!rules) {
    // Nothing is filtered, but the ct rule keeps connection tracking on in the namespace, so the connections
    // opened now are known as established when a policy arrives later.
    const chain = ["  chain output {", `${FILTER_OUTPUT} policy accept;`, `    ${ESTABLISHED}`, "  }"];
    return `${[...head, `table inet ${EGRESS_TABLE} {`, ...chain, "}"].join("\n")}\n`;
  }
  const resolvers = (options.resolvers ?? []).map((text) => {
    const address = parseIpv4(text);
    if (address === null) throw new Error(`not an IPv4 resolver address: ${text}`);
    return formatIpv4(address);
  });
  const resolver =
    resolvers.length === 0
      ? undefined
      : resolvers.length === 1
        ? resolvers[0]
        : `{ ${resolvers.join(", ")} }`;
  const reject = "reject with icmpx type admin-prohibited";
  const dns = "meta l4proto { tcp, udp } th dport 53";
  const chain: string[] = [
    `${FILTER_OUTPUT} policy ${rules.internet ? "accept" : "drop"};`,
    '    oif "lo" accept',
    `    ${ESTABLISHED}`,
    `    ip daddr @deny4 ${reject}`,
    `    ip daddr @dyndeny4 ${reject}`,
  ];
  if (resolver) {
    // The sandbox's own name server only: no other one to ask names of, or to carry data out through.
    chain.push(`    ip daddr != ${resolver} ${dns} ${reject}`);
    chain.push(`    ip daddr ${resolver} ${dns} accept`);
  }
  if (!rules.internet) {
    chain.push("    ip daddr @allow4 accept", "    ip daddr @dyn4 accept", `    ${reject}`);
  }
  const lines = [
    ...head,
    `table inet ${EGRESS_TABLE} {`,
    set("allow4", rules.allow.cidrs, "interval; auto-merge"),
    set("deny4", rules.deny.cidrs, "interval; auto-merge"),
    set("dyn4", [], "timeout"),
    set("dyndeny4", [], "timeout"),
    "  chain output {",
    ...chain,
    "  }",
    "}",
  ];
  return `${lines.join("\n")}\n`;
}

/** Runs `nft -f -` with `file` inside the sandbox's namespace. */
export async function applyNftInSandbox(id: string, file: string): Promise<void> {
  await runTool("nsenter", [`--net=${netnsPath(id)}`, "--", "nft", "-f", "-"], file);
}

/**
 * The rules with each exact hostname's addresses, as the host resolves them now, added to its list as /32s
 * (wildcards are left to the resolver hook). Throws ServiceError INVALID_REQUEST naming a hostname that does not
 * resolve: a denied name left out would be let through.
 */
export async function resolveHostnames(rules: EgressRules, lookup: HostLookup): Promise<EgressRules> {
  const resolve = async (hostnames: string[], field: string): Promise<string[]> => {
    const exact = hostnames.filter((hostname) => !hostname.startsWith("*."));
    const answers = await Promise.all(
      exact.map(async (hostname) => {
        let ipv4: number[] = [];
        let reason = "no IPv4 address";
        try {
          ipv4 = (await lookup(hostname)).map(parseIpv4).filter((value): value is number => value !== null);
        } catch (error) {
          reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
        }
        if (ipv4.length === 0) {
          throw new ServiceError(
            "INVALID_REQUEST",
            `network.${field}: ${hostname} does not resolve (${reason})`,
          );
        }
        return ipv4.map((address) => `${formatIpv4(address)}/32`);
      }),
    );
    return answers.flat();
  };
  const [allow, deny] = await Promise.all([
    resolve(rules.allow.hostnames, "allow_out"),
    resolve(rules.deny.hostnames, "deny_out"),
  ]);
  return {
    ...rules,
    allow: { ...rules.allow, cidrs: [...new Set([...rules.allow.cidrs, ...allow])] },
    deny: { ...rules.deny, cidrs: [...new Set([...rules.deny.cidrs, ...deny])] },
  };
}

/**
 * Parses, renders and applies a policy in the sandbox's namespace in one transaction; returns the parsed rules
 * (the resolver hook needs their hostnames). With `lookup`, exact hostnames are resolved first (see
 * resolveHostnames). Throws ServiceError INVALID_REQUEST on a bad policy or a name that does not resolve, before
 * touching anything: the policy in force stays.
 */
export async function applyEgressPolicy(
  id: string,
  policy: SandboxNetworkAccessControl | null | undefined,
  options: EgressRenderOptions & { lookup?: HostLookup } = {},
): Promise<EgressRules | null> {
  const parsed = parseEgressPolicy(policy);
  const rules = parsed && options.lookup ? await resolveHostnames(parsed, options.lookup) : parsed;
  await applyNftInSandbox(id, renderEgressPolicy(rules, options));
  return parsed;
}

/**
 * The resolver's hook: lets the sandbox reach (or keeps it from) the addresses `hostname` resolved to, for
 * `ttlSecs` (at least 1 s). Returns which list they went to; a name no rule covers, or a sandbox without a
 * policy, changes nothing. IPv6 addresses are skipped (sandboxes have no IPv6 route).
 */
export async function addResolvedAddresses(
  id: string,
  rules: EgressRules | null,
  hostname: string,
  addresses: string[],
  ttlSecs: number,
): Promise<"allow" | "deny" | null> {
  if (!rules) return null;
  const list = classifyHostname(rules, hostname);
  if (!list) return null;
  const ipv4 = addresses
    .map(parseIpv4)
    .filter((value): value is number => value !== null)
    .map(formatIpv4);
  if (ipv4.length === 0) return list;
  const timeout = Math.max(1, Math.ceil(ttlSecs));
  const setName = list === "allow" ? "dyn4" : "dyndeny4";
  // `add` leaves an element already present with its old timeout, and `delete` fails on a missing one: so
  // add (making sure it exists), delete and add again with the new timeout, in one transaction with no gap.
  const elements = ipv4.map((address) => `${address} timeout ${timeout}s`).join(", ");
  const plain = ipv4.join(", ");
  const file = [
    `add element inet ${EGRESS_TABLE} ${setName} { ${plain} }`,
    `delete element inet ${EGRESS_TABLE} ${setName} { ${plain} }`,
    `add element inet ${EGRESS_TABLE} ${setName} { ${elements} }`,
  ].join("\n");
  await applyNftInSandbox(id, `${file}\n`);
  return list;
}
