import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before, describe, test } from "node:test";
import { parseImageReference } from "./image-reference.ts";
import { OciImageError, OciImageStore } from "./oci-images.ts";
import {
  blobFetches,
  layerDigests,
  pushTestImage,
  type Registry,
  startRegistry,
} from "./registry-testbed.ts";
import { missingPrerequisite, REGISTRY_TOOLS } from "./test-support.ts";

const skip = missingPrerequisite(REGISTRY_TOOLS);

describe("OCI images from a registry on loopback", { skip }, () => {
  let registry: Registry;
  let scratch: string;
  let store: OciImageStore;
  let appLayout: string;
  let otherLayout: string;
  const base = { "etc/os-release": "ID=testbase\n", "usr/share/base.txt": "shared layer\n".repeat(1000) };

  before(async () => {
    registry = await startRegistry();
    scratch = mkdtempSync(join(tmpdir(), "svc-oci-test-"));
    store = new OciImageStore(join(scratch, "store"), { allowedRegistries: [registry.address] });
    appLayout = pushTestImage(registry, "team/app", "v1", {
      baseFiles: { ...base, "tmp/gone.txt": "deleted above\n" },
      files: { "srv/app/hello.txt": "hello from the image\n" },
      removed: ["tmp/gone.txt"],
      env: ["GREETING=hi there", "PATH=/usr/local/bin:/usr/bin:/bin"],
      workingDir: "/srv/app",
      user: "1000:1000",
      entrypoint: ["/bin/sh", "-c"],
      cmd: ["echo started"],
    });
    otherLayout = pushTestImage(registry, "team/other", "v1", {
      baseFiles: base,
      files: { "other.txt": "other\n" },
    });
  });

  after(async () => {
    await registry?.stop();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    // The scratch layouts the images were made in.
    for (const layout of [appLayout, otherLayout])
      if (layout) rmSync(dirname(layout), { recursive: true, force: true });
  });

  const credentials = () => ({ username: registry.username, password: registry.password });
  const ref = (path: string) => parseImageReference(`${registry.address}/${path}`);

  test("a pull unpacks the layers (whiteouts applied) and reads the image's config", async () => {
    const progress: string[] = [];
    const image = await store.pull(ref("team/app:v1"), {
      credentials: credentials(),
      onProgress: (l) => progress.push(l),
    });
    assert.match(image.digest, /^sha256:[a-f0-9]{64}$/);
    assert.equal(readFileSync(join(image.rootfs, "srv/app/hello.txt"), "utf8"), "hello from the image\n");
    assert.equal(readFileSync(join(image.rootfs, "etc/os-release"), "utf8"), "ID=testbase\n");
    assert.equal(
      existsSync(join(image.rootfs, "tmp/gone.txt")),
      false,
      "the top layer's whiteout removes the file",
    );
    assert.deepEqual(image.config, {
      env: ["GREETING=hi there", "PATH=/usr/local/bin:/usr/bin:/bin"],
      workingDir: "/srv/app",
      user: "1000:1000",
      entrypoint: ["/bin/sh", "-c"],
      cmd: ["echo started"],
    });
    assert.ok(image.sizeBytes > 13_000, `size ${image.sizeBytes}`);
    assert.ok(
      progress.some((l) => /blob/i.test(l)),
      `progress lines: ${progress.join(" | ")}`,
    );
    assert.doesNotMatch(progress.join("\n"), new RegExp(registry.password), "the password is never printed");
  });

  test("a shared layer is fetched and stored once; a pinned digest the store has is not fetched again", async () => {
    const [baseLayer] = layerDigests(appLayout, "v1");
    const before = blobFetches(registry, baseLayer);
    assert.equal(before, 1, "the first pull fetched the base layer once");
    const other = await store.pull(ref("team/other:v1"), { credentials: credentials() });
    assert.equal(readFileSync(join(other.rootfs, "other.txt"), "utf8"), "other\n");
    assert.equal(
      blobFetches(registry, baseLayer),
      1,
      "the second image's identical base layer came from the store",
    );
    const again = await store.pull(ref("team/app:v1"), { credentials: credentials() });
    const pinned = await store.pull(ref(`team/app@${again.digest}`), { credentials: credentials() });
    assert.equal(pinned.rootfs, again.rootfs);
    const manifestGets = registry
      .log()
      .split("\n")
      .filter((l) => l.includes(`"GET /v2/team/app/manifests/${again.digest}`));
    assert.equal(manifestGets.length, 0, "a digest the store holds is served from it");
  });

  test("a missing image, bad credentials and a private registry not listed fail with their kind", async () => {
    await assert.rejects(store.pull(ref("team/missing:v1"), { credentials: credentials() }), (e: unknown) => {
      assert.ok(e instanceof OciImageError);
      assert.equal(e.kind, "not_found");
      assert.match(e.message, /team\/missing:v1/);
      return true;
    });
    for (const options of [{}, { credentials: { username: registry.username, password: "wrong" } }]) {
      await assert.rejects(store.pull(ref("team/app:v1"), options), (e: unknown) => {
        assert.ok(e instanceof OciImageError);
        assert.equal(e.kind, "unauthorized");
        assert.doesNotMatch(e.message, /wrong/);
        return true;
      });
    }
    const strict = new OciImageStore(join(scratch, "strict"));
    await assert.rejects(strict.pull(ref("team/app:v1"), { credentials: credentials() }), (e: unknown) => {
      assert.ok(e instanceof OciImageError);
      assert.equal(e.kind, "blocked_address");
      assert.match(e.message, /loopback/);
      return true;
    });
    const resolvedPrivate = new OciImageStore(join(scratch, "private"), {
      resolve: async () => ["10.1.2.3"],
    });
    await assert.rejects(resolvedPrivate.pull(parseImageReference("registry.example.com/app:v1")), /private/);
  });

  test("archives: an OCI archive and a docker save archive import; a layer cannot write outside the tree", async () => {
    const ociArchive = join(scratch, "app-oci.tar");
    execFileSync("tar", ["-C", appLayout, "-cf", ociArchive, "."]);
    const fromOci = await store.importArchive(ociArchive, "app-oci");
    assert.equal(readFileSync(join(fromOci.rootfs, "srv/app/hello.txt"), "utf8"), "hello from the image\n");
    const pulled = await store.pull(ref("team/app:v1"), { credentials: credentials() });
    assert.equal(fromOci.digest, pulled.digest, "the same image by another route is the same tree");

    // A hand-made `docker save` archive whose first layer holds a symlink out of the tree and whose second
    // layer writes through it, and a device node: neither may reach the host.
    const outside = join(scratch, "outside");
    mkdirSync(outside);
    const work = join(scratch, "docker-save");
    const layer = (name: string, build: (root: string) => void) => {
      const root = join(work, `${name}-root`);
      mkdirSync(root, { recursive: true });
      build(root);
      execFileSync("tar", ["--numeric-owner", "-C", root, "-cf", join(work, `${name}.tar`), "."]);
      return execFileSync("sha256sum", [join(work, `${name}.tar`)], { encoding: "utf8" }).split(" ")[0];
    };
    mkdirSync(work);
    const first = layer("l1", (root) => {
      symlinkSync(outside, join(root, "escape"));
      execFileSync("mknod", [join(root, "devnode"), "c", "1", "3"]);
      writeFileSync(join(root, "inside.txt"), "inside\n");
    });
    const second = layer("l2", (root) => {
      mkdirSync(join(root, "escape"));
      writeFileSync(join(root, "escape", "pwned"), "written through a symlink\n");
    });
    const config = {
      architecture: "amd64",
      os: "linux",
      config: { Env: ["FROM_ARCHIVE=1"] },
      rootfs: { type: "layers", diff_ids: [`sha256:${first}`, `sha256:${second}`] },
    };
    writeFileSync(join(work, "config.json"), JSON.stringify(config));
    writeFileSync(
      join(work, "manifest.json"),
      JSON.stringify([{ Config: "config.json", RepoTags: ["evil:1"], Layers: ["l1.tar", "l2.tar"] }]),
    );
    const archive = join(scratch, "evil.tar");
    execFileSync("tar", ["-C", work, "-cf", archive, "manifest.json", "config.json", "l1.tar", "l2.tar"]);
    const evil = await store.importArchive(archive, "evil");
    assert.deepEqual(evil.config.env, ["FROM_ARCHIVE=1"]);
    assert.equal(readFileSync(join(evil.rootfs, "inside.txt"), "utf8"), "inside\n");
    assert.equal(existsSync(join(outside, "pwned")), false, "nothing was written outside the tree");
    assert.equal(existsSync(join(evil.rootfs, "devnode")), false, "device nodes are removed");
    const escaped = lstatSync(join(evil.rootfs, "escape"));
    assert.ok(escaped.isDirectory() || escaped.isSymbolicLink());
    assert.ok(statSync(evil.rootfs).isDirectory());

    const notArchive = join(scratch, "not.tar");
    writeFileSync(notArchive, "plain text, not a tar");
    await assert.rejects(store.importArchive(notArchive, "x"), (e: unknown) => {
      assert.ok(e instanceof OciImageError);
      assert.equal(e.kind, "invalid");
      return true;
    });
  });
});
