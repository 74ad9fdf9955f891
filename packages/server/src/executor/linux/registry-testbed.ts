/**
 * # registry-testbed
 *
 * For tests and benchmarks: Debian's `docker-registry` (the reference registry) on a loopback port with
 * htpasswd authentication, and images made with `umoci` from files the caller writes, pushed with `skopeo`.
 * The registry's access log is kept so a test can count the blobs a pull fetched.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface Registry {
  /** `127.0.0.1:<port>` */
  address: string;
  username: string;
  password: string;
  /** The registry's log so far (one line per request). */
  log(): string;
  stop(): Promise<void>;
}

export interface TestImage {
  /** Files of the image's single layer, path → content. */
  files: Record<string, string | Buffer>;
  /** Extra layers laid first, e.g. one shared by several images. */
  baseFiles?: Record<string, string | Buffer>;
  /** Paths of the base layer the top layer deletes (whiteouts). */
  removed?: string[];
  /** Modes of files of the top layer (e.g. 0o755, 0o4755), path → mode; others are 0644. */
  modes?: Record<string, number>;
  env?: string[];
  workingDir?: string;
  user?: string;
  entrypoint?: string[];
  cmd?: string[];
}

/** A busybox-static tree the daemon can run in, with one file (`srv/<name>`) that makes each image its own. */
export function markedBusyboxImage(name: string, content: string): TestImage {
  return {
    files: {
      "bin/sh": readFileSync(execFileSync("sh", ["-c", "command -v busybox"], { encoding: "utf8" }).trim()),
      "etc/passwd": "root:x:0:0:root:/root:/bin/sh\n",
      "etc/group": "root:x:0:\n",
      [`srv/${name}`]: `${content}\n`,
    },
    modes: { "bin/sh": 0o755 },
    env: ["PATH=/bin"],
  };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

/** Starts a registry on loopback; resolves once it answers. */
export async function startRegistry(): Promise<Registry> {
  const dir = mkdtempSync(join(tmpdir(), "svc-registry-"));
  const username = "tester";
  const password = `pw-${process.pid}-${Date.now()}`;
  writeFileSync(join(dir, "htpasswd"), execFileSync("htpasswd", ["-Bbn", username, password]));
  const port = await freePort();
  const address = `127.0.0.1:${port}`;
  writeFileSync(
    join(dir, "config.yml"),
    [
      "version: 0.1",
      "log:",
      "  level: info",
      "storage:",
      "  filesystem:",
      `    rootdirectory: ${join(dir, "data")}`,
      "  delete:",
      "    enabled: true",
      "http:",
      `  addr: ${address}`,
      "auth:",
      "  htpasswd:",
      "    realm: test",
      `    path: ${join(dir, "htpasswd")}`,
      "",
    ].join("\n"),
  );
  let output = "";
  const child: ChildProcess = spawn("docker-registry", ["serve", join(dir, "config.yml")], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  child.stdout?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr?.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      const response = await fetch(`http://${address}/v2/`);
      if (response.status === 401 || response.ok) break;
    } catch {
      // not listening yet
    }
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`docker-registry did not start: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    address,
    username,
    password,
    log: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once("exit", resolve));
        child.kill("SIGTERM");
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function writeTree(
  root: string,
  files: Record<string, string | Buffer>,
  modes: Record<string, number> = {},
): void {
  for (const [path, content] of Object.entries(files)) {
    const target = join(root, path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, content);
  }
  // Directories may have a mode too (e.g. a sticky, world-writable /tmp).
  for (const [path, mode] of Object.entries(modes)) chmodSync(join(root, path), mode);
}

/**
 * Makes an image with umoci in a scratch layout and pushes it to `<registry>/<repository>:<tag>`; answers the
 * scratch layout's directory (the caller may use it as an `oci:` source) and removes nothing else.
 */
export function pushTestImage(registry: Registry, repository: string, tag: string, image: TestImage): string {
  const work = mkdtempSync(join(tmpdir(), "svc-image-"));
  const layout = join(work, "layout");
  const ref = `${layout}:${tag}`;
  const run = (file: string, args: string[]) =>
    execFileSync(file, args, { stdio: ["ignore", "pipe", "pipe"] });
  run("umoci", ["init", "--layout", layout]);
  run("umoci", ["new", "--image", ref]);
  const layers = image.baseFiles ? [image.baseFiles, image.files] : [image.files];
  for (const files of layers) {
    const bundle = join(work, `bundle-${Math.random().toString(36).slice(2)}`);
    run("umoci", ["unpack", "--image", ref, bundle]);
    writeTree(join(bundle, "rootfs"), files, files === image.files ? image.modes : {});
    if (files === image.files)
      for (const path of image.removed ?? []) rmSync(join(bundle, "rootfs", path), { recursive: true });
    run("umoci", ["repack", "--image", ref, bundle]);
    rmSync(bundle, { recursive: true, force: true });
  }
  const config: string[] = [];
  for (const e of image.env ?? []) config.push(`--config.env=${e}`);
  if (image.workingDir) config.push(`--config.workingdir=${image.workingDir}`);
  if (image.user) config.push(`--config.user=${image.user}`);
  for (const e of image.entrypoint ?? []) config.push(`--config.entrypoint=${e}`);
  for (const c of image.cmd ?? []) config.push(`--config.cmd=${c}`);
  if (config.length > 0) run("umoci", ["config", "--image", ref, ...config]);
  run("skopeo", [
    "copy",
    "--dest-tls-verify=false",
    `--dest-creds=${registry.username}:${registry.password}`,
    `oci:${ref}`,
    `docker://${registry.address}/${repository}:${tag}`,
  ]);
  return layout;
}

/** The number of times the registry served the blob with this digest. */
export function blobFetches(registry: Registry, digest: string): number {
  return registry
    .log()
    .split("\n")
    .filter((line) => line.includes(`"GET /v2/`) && line.includes(`/blobs/${digest} `)).length;
}

/** The layer digests of a pushed image, from the scratch layout `pushTestImage` answered. */
export function layerDigests(layout: string, tag: string): string[] {
  const index = JSON.parse(readFileSync(join(layout, "index.json"), "utf8")) as {
    manifests: { digest: string; annotations?: Record<string, string> }[];
  };
  const entry = index.manifests.find((m) => m.annotations?.["org.opencontainers.image.ref.name"] === tag);
  if (!entry) throw new Error(`no tag ${tag}`);
  const blob = (d: string) => join(layout, "blobs", "sha256", d.replace(/^sha256:/, ""));
  const manifest = JSON.parse(readFileSync(blob(entry.digest), "utf8")) as { layers: { digest: string }[] };
  return manifest.layers.map((l) => l.digest);
}
