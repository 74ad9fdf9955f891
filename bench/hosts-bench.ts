/**
 * Several hosts: sandbox creates per second and parse pages per second with one host, then with two (ratio).
 * Each host is a server process in a network namespace of its own, all on one PostgreSQL (the harness of the
 * several-hosts test, packages/server/src/hosts/cluster.testing.ts). Needs root.
 *
 *   node bench/hosts-bench.ts [--sandboxes 8] [--jobs 12] [--pdf <file>]   (default: the corpus's normal_4pages.pdf)
 *
 * PostgreSQL: $SVC_TEST_DATABASE_URL, else scripts/postgres.sh is run for one. Every host runs every role with
 * the default settings (2 parse workers each). Creates: N sandboxes posted at once, from the first POST until the
 * last is running. Parse: the PDF uploaded once, N parse jobs of it posted at once, from the first POST until the
 * last is successful; pages are the jobs' total_pages. Both hosts share this machine's cores: the ratio says what
 * a second host adds here, not what a second machine would.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { DOCLING_DATA } from "../packages/docparse/src/test-corpus.ts";
import { type ClusterHost, callApi, createCluster } from "../packages/server/src/hosts/cluster.testing.ts";
import { openStore } from "../packages/server/src/store/store.ts";

const { values } = parseArgs({
  options: {
    sandboxes: { type: "string", default: "8" },
    jobs: { type: "string", default: "12" },
    pdf: { type: "string" },
  },
});
const PDF = values.pdf ?? (DOCLING_DATA && path.join(DOCLING_DATA, "pdf/sources/normal_4pages.pdf"));
if (!PDF) throw new Error("no shared corpus: pass --pdf <file> (or set SVC_CORPUS_DIR)");
const SANDBOXES = Number(values.sandboxes);
const JOBS = Number(values.jobs);
if (process.getuid?.() !== 0) throw new Error("hosts-bench needs root (network namespaces and sandboxes)");

const root = fileURLToPath(new URL("..", import.meta.url));
const databaseUrl =
  process.env.SVC_TEST_DATABASE_URL ??
  execFileSync(path.join(root, "scripts/postgres.sh"), { encoding: "utf8" }).trim().split("\n").pop();
if (!databaseUrl) throw new Error("no PostgreSQL URL");

const cluster = await createCluster({ databaseUrl, names: ["a", "b"] });
const stopping = () => {
  cluster.dispose().finally(() => process.exit(130));
};
process.once("SIGINT", stopping);
process.once("SIGTERM", stopping);

async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 600_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

try {
  const [a, b] = cluster.hosts;
  await cluster.start(a, "api,proxy,scheduler,executor,worker");
  const apiKey = readFileSync(path.join(a.dataDir, "api-key"), "utf8").trim();
  const store = await openStore({ databaseUrl: cluster.localDatabaseUrl });
  const call = async (host: ClusterHost, method: string, route: string, body?: unknown) => {
    const { status, text, body: answer } = await callApi(host, apiKey, method, route, body);
    if (status >= 400) throw new Error(`${method} ${route}: ${status} ${text}`);
    return answer;
  };
  const statusOf = async (ids: string[]) =>
    store.db.query<{ id: string; status: string; executor_id: string | null }>(
      `SELECT id, status, executor_id FROM sandboxes WHERE id IN (${ids.map(() => "?").join(", ")})`,
      ids,
    );

  /** N sandboxes posted at once (through the hosts in turn) until all run; then deleted and removed. */
  async function creates(hosts: ClusterHost[], count: number): Promise<{ perSec: number; on: string }> {
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const body = await call(hosts[i % hosts.length], "POST", "/sandboxes", {
          resources: { cpus: 0.25, memory_mb: 256, disk_mb: 512 },
        });
        return body.sandbox_id as string;
      }),
    );
    const rows = await until("sandboxes running", async () => {
      const rows = await statusOf(ids);
      const failed = rows.find((row) => row.status === "terminated");
      if (failed) throw new Error(`sandbox ${failed.id} ended while starting`);
      return rows.every((row) => row.status === "running") ? rows : undefined;
    });
    const seconds = (performance.now() - started) / 1000;
    const on = Object.entries(
      rows.reduce<Record<string, number>>((count, row) => {
        count[row.executor_id ?? "?"] = (count[row.executor_id ?? "?"] ?? 0) + 1;
        return count;
      }, {}),
    )
      .map(([executor, n]) => `${executor}: ${n}`)
      .join(", ");
    await Promise.all(ids.map((id) => call(hosts[0], "DELETE", `/sandboxes/${id}`)));
    for (const host of hosts) {
      await until(`${host.name}'s sandboxes removed`, async () =>
        (await readdir(path.join(host.dataDir, "sandboxes")).catch(() => [])).length === 0 ? true : undefined,
      );
    }
    return { perSec: count / seconds, on };
  }

  const pdf = new Uint8Array(readFileSync(PDF));
  const form = new FormData();
  form.set("file", new Blob([pdf], { type: "application/pdf" }), path.basename(PDF));
  const uploaded = await fetch(`${a.url}/documents/v2/files`, {
    method: "PUT",
    headers: { authorization: `Bearer ${apiKey}` },
    body: form,
  });
  const { file_id: fileId } = (await uploaded.json()) as { file_id: string };

  /** N parse jobs of the PDF posted at once (through the hosts in turn) until all succeed. */
  async function parses(
    hosts: ClusterHost[],
    count: number,
  ): Promise<{ pagesPerSec: number; pages: number }> {
    const started = performance.now();
    const ids = await Promise.all(
      Array.from({ length: count }, async (_, i) => {
        const body = await call(hosts[i % hosts.length], "POST", "/documents/v2/parse", { file_id: fileId });
        return body.parse_id as string;
      }),
    );
    const rows = await until("parse jobs done", async () => {
      const rows = await store.db.query<{ status: string; total_pages: number | null; error: string | null }>(
        `SELECT status, total_pages, error FROM parse_jobs WHERE id IN (${ids.map(() => "?").join(", ")})`,
        ids,
      );
      const failed = rows.find((row) => row.status === "failure");
      if (failed) throw new Error(`a parse failed: ${failed.error}`);
      return rows.every((row) => row.status === "successful") ? rows : undefined;
    });
    const seconds = (performance.now() - started) / 1000;
    const pages = rows.reduce((sum, row) => sum + Number(row.total_pages ?? 0), 0);
    return { pagesPerSec: pages / seconds, pages };
  }

  console.log(`hosts-bench: ${SANDBOXES} sandboxes, ${JOBS} parse jobs of ${path.basename(PDF)}`);
  // Warm-up: the first sandbox of a data directory builds the daemon's code cache; the first parse warms pdf.js.
  await creates([a], 1);
  await parses([a], 2);
  const oneCreates = await creates([a], SANDBOXES);
  const oneParses = await parses([a], JOBS);

  await cluster.start(b, "api,proxy,scheduler,executor,worker");
  await creates([a, b], 2);
  await parses([a, b], 4);
  const twoCreates = await creates([a, b], SANDBOXES);
  const twoParses = await parses([a, b], JOBS);

  const f = (n: number) => n.toFixed(2);
  console.log(`sandbox creates/s   one host ${f(oneCreates.perSec)} (${oneCreates.on})`);
  console.log(`                    two hosts ${f(twoCreates.perSec)} (${twoCreates.on})`);
  console.log(`                    ratio two/one ${f(twoCreates.perSec / oneCreates.perSec)}`);
  console.log(`parse pages/s       one host ${f(oneParses.pagesPerSec)} (${oneParses.pages} pages)`);
  console.log(`                    two hosts ${f(twoParses.pagesPerSec)} (${twoParses.pages} pages)`);
  console.log(`                    ratio two/one ${f(twoParses.pagesPerSec / oneParses.pagesPerSec)}`);
  await store.close();
  for (const host of cluster.hosts) await cluster.kill(host, "SIGTERM");
} finally {
  await cluster.dispose();
}
