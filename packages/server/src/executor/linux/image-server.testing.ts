/**
 * For the image tests: a loopback registry and a test server with the local executor whose project may pull from
 * it, in a scratch folder of their own, with a view of the server's unpacked image trees.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { Client, type Sandbox } from "@svc/sdk";
import { startTestServer, type TestServer } from "../../testing.ts";
import { pushTestImage, type Registry, startRegistry, type TestImage } from "./registry-testbed.ts";
import { removeLeftovers } from "./test-support.ts";

export interface ImageServer {
  registry: Registry;
  server: TestServer;
  client: Client;
  /** A folder for the test's own files, removed by `stop`. */
  scratch: string;
  dataDir: string;
  /** Pushes an image to the registry; answers its OCI layout folder. */
  push(repository: string, tag: string, image: TestImage): string;
  /** The digests (hex) of the unpacked image trees, sorted. */
  treeDigests(): string[];
  /** Dates every tree's last use back by `secs`, so a grace period passes without waiting. */
  ageTrees(secs: number): void;
  /** Creates a sandbox that `stop` deletes if the test has not. */
  create(request: Parameters<Client["sandboxes"]["create"]>[0]): Promise<Sandbox>;
  /** Deletes the sandboxes created and not deleted yet. */
  deleteSandboxes(): Promise<void>;
  stop(): Promise<void>;
}

export async function startImageServer(name: string, imageGraceSecs: number): Promise<ImageServer> {
  const scratch = mkdtempSync(join(tmpdir(), `svc-${name}-test-`));
  const dataDir = join(scratch, "data");
  const trees = join(dataDir, "oci-images", "rootfs");
  mkdirSync(dataDir, { recursive: true });
  const layouts: string[] = [];
  const sandboxes: Sandbox[] = [];
  const registry = await startRegistry();
  const server = await startTestServer({
    executor: "local",
    allowedRegistries: [registry.address],
    dataDir,
    imageGraceSecs,
  });
  const client = new Client({ apiKey: server.apiKey, baseUrl: server.url });
  await client.registries.put(registry.address, { username: registry.username, password: registry.password });
  const treeDigests = () => (existsSync(trees) ? readdirSync(trees).sort() : []);
  const deleteSandboxes = async () => {
    for (const sandbox of sandboxes.splice(0)) await sandbox.delete().catch(() => undefined);
  };
  return {
    registry,
    server,
    client,
    scratch,
    dataDir,
    push(repository, tag, image) {
      const layout = pushTestImage(registry, repository, tag, image);
      layouts.push(layout);
      return layout;
    },
    treeDigests,
    ageTrees(secs) {
      const long = new Date(Date.now() - secs * 1000);
      for (const hex of treeDigests()) utimesSync(join(trees, hex, "image.json"), long, long);
    },
    async create(request) {
      const sandbox = await client.sandboxes.create(request);
      sandboxes.push(sandbox);
      return sandbox;
    },
    deleteSandboxes,
    async stop() {
      await deleteSandboxes();
      await removeLeftovers(dataDir);
      await server.stop();
      await registry.stop();
      for (const layout of layouts) rmSync(dirname(layout), { recursive: true, force: true });
      rmSync(scratch, { recursive: true, force: true });
    },
  };
}
