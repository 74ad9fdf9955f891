import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { acquireFileLock } from "./file-lock.ts";
import {
  DEFAULT_IMAGE_RECIPE,
  debootstrapProgress,
  defaultImageDir,
  ensureDefaultImage,
  hostDebianMirror,
  ImageNotFoundError,
  imageRecipeHash,
  readImageInfo,
  removeUnusedImages,
  resolveImage,
} from "./image.ts";
import { readMounts } from "./mounts.ts";
import { missingPrerequisite, TEST_DATA_DIR, testImageRootfs } from "./test-support.ts";

let scratch: string;
before(() => {
  scratch = mkdtempSync(join(tmpdir(), "svc-image-"));
});
after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("image recipe and helpers", () => {
  test("the recipe hash names the image and changes with the recipe only", () => {
    const hash = imageRecipeHash(DEFAULT_IMAGE_RECIPE);
    assert.match(hash, /^[0-9a-f]{16}$/);
    assert.equal(imageRecipeHash({ ...DEFAULT_IMAGE_RECIPE }), hash);
    assert.equal(
      imageRecipeHash({ ...DEFAULT_IMAGE_RECIPE, packages: [...DEFAULT_IMAGE_RECIPE.packages].reverse() }),
      hash,
      "package order does not matter",
    );
    assert.notEqual(imageRecipeHash({ ...DEFAULT_IMAGE_RECIPE, version: 99 }), hash);
    assert.notEqual(imageRecipeHash({ ...DEFAULT_IMAGE_RECIPE, packages: ["bash"] }), hash);
    assert.notEqual(
      imageRecipeHash({
        ...DEFAULT_IMAGE_RECIPE,
        files: { ...DEFAULT_IMAGE_RECIPE.files, "/etc/motd": "hi" },
      }),
      hash,
    );
    assert.equal(defaultImageDir("/data"), `/data/images/default-${hash}`);
  });

  test("the mirror comes from the host's apt sources (deb822 or one-line), skipping security and updates", () => {
    const deb822 = join(scratch, "apt822");
    mkdirSync(join(deb822, "sources.list.d"), { recursive: true });
    writeFileSync(
      join(deb822, "sources.list.d", "debian.sources"),
      [
        "Types: deb",
        "URIs: http://security.example/debian-security",
        "Suites: bookworm-security",
        "Components: main",
        "",
        "Types: deb",
        "# a comment",
        "URIs: http://mirror.example/debian",
        "Suites: bookworm bookworm-updates",
        "Components: main",
        "",
      ].join("\n"),
    );
    assert.equal(hostDebianMirror(deb822), "http://mirror.example/debian");

    const oneLine = join(scratch, "aptlist");
    mkdirSync(oneLine);
    writeFileSync(
      join(oneLine, "sources.list"),
      "# deb http://commented.example/debian bookworm main\n" +
        "deb http://security.example/debian-security bookworm-security main\n" +
        "deb [arch=amd64] http://other.example/debian bookworm main contrib\n",
    );
    assert.equal(hostDebianMirror(oneLine), "http://other.example/debian");
    assert.equal(hostDebianMirror(join(scratch, "none")), undefined);
  });

  test("debootstrap's per-package lines are folded into one line per phase", () => {
    const lines: string[] = [];
    const feed = debootstrapProgress((l) => lines.push(l));
    feed("I: Retrieving InRelease ");
    feed("I: Checking Release signature");
    for (const pkg of ["adduser", "apt", "base-files"]) {
      feed(`I: Retrieving ${pkg} 1.0`);
      feed(`I: Validating ${pkg} 1.0`);
    }
    feed("I: Chosen extractor for .deb packages: dpkg-deb");
    for (const pkg of ["adduser", "apt"]) feed(`I: Extracting ${pkg}...`);
    feed("I: Installing core packages...");
    feed("I: Unpacking required packages...");
    for (const pkg of ["libc6:amd64", "bash"]) feed(`I: Unpacking ${pkg}...`);
    feed("I: Configuring required packages...");
    feed("I: Configuring libc-bin...");
    feed("I: Base system installed successfully.");
    feed("some dpkg noise without a prefix");
    assert.deepEqual(lines, [
      "I: Retrieving InRelease ",
      "I: Checking Release signature",
      "I: downloading done (3 packages)",
      "I: Chosen extractor for .deb packages: dpkg-deb",
      "I: extracting done (2 packages)",
      "I: Installing core packages...",
      "I: Unpacking required packages...",
      "I: unpacking done (2 packages)",
      "I: Configuring required packages...",
      "I: configuring done (1 packages)",
      "I: Base system installed successfully.",
    ]);
  });

  test("resolveImage: custom images by name, ImageNotFoundError otherwise", async () => {
    const dataDir = join(scratch, "custom-data");
    mkdirSync(join(dataDir, "images", "custom", "mine", "rootfs"), { recursive: true });
    assert.equal(await resolveImage(dataDir, "mine"), join(dataDir, "images", "custom", "mine", "rootfs"));
    for (const name of ["nope", "../custom/mine", "", "a/b"]) {
      await assert.rejects(resolveImage(dataDir, name), (e: unknown) => {
        assert.ok(e instanceof ImageNotFoundError);
        assert.equal(e.imageName, name);
        return true;
      });
    }
  });
});

describe("file lock", { skip: missingPrerequisite(["flock"]) }, () => {
  test("excludes a second holder until released", async () => {
    const path = join(scratch, "a.lock");
    const first = await acquireFileLock(path, { wait: false });
    assert.ok(first);
    assert.equal(await acquireFileLock(path, { wait: false }), null);
    const waiting = acquireFileLock(path, { wait: true });
    await first.release();
    const second = await waiting;
    assert.ok(second);
    await second.release();
    await second.release(); // idempotent
  });

  test("is released when its holder dies, however it dies", async () => {
    const path = join(scratch, "b.lock");
    const holder = spawn(
      process.execPath,
      [
        "--input-type=module",
        "-e",
        `const { acquireFileLock } = await import(${JSON.stringify(join(import.meta.dirname, "file-lock.ts"))});
         await acquireFileLock(${JSON.stringify(path)}, { wait: false });
         console.log("held"); setInterval(() => {}, 1000);`,
      ],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    await new Promise<void>((resolve) => holder.stdout.once("data", () => resolve()));
    assert.equal(await acquireFileLock(path, { wait: false }), null);
    holder.kill("SIGKILL");
    await new Promise((r) => holder.once("close", r));
    const lock = await acquireFileLock(path, { wait: true });
    assert.ok(lock);
    await lock.release();
  });
});

const skipBuild = missingPrerequisite(["debootstrap", "bwrap", "flock"]);

describe("default image", { skip: skipBuild }, () => {
  let rootfs: string;
  before(async () => {
    rootfs = await testImageRootfs();
  });

  test("is built once into <dataDir>/images/default-<hash>/rootfs with image.json", async () => {
    const dir = defaultImageDir(TEST_DATA_DIR);
    assert.equal(rootfs, join(dir, "rootfs"));
    assert.equal(await resolveImage(TEST_DATA_DIR, "default"), rootfs);
    const [a, b] = await Promise.all([ensureDefaultImage(TEST_DATA_DIR), ensureDefaultImage(TEST_DATA_DIR)]);
    assert.equal(a, rootfs);
    assert.equal(b, rootfs);
    const info = readImageInfo(dir);
    assert.ok(info);
    assert.equal(info.hash, imageRecipeHash());
    assert.match(info.mirror, /^(https?|file):/);
    console.log(
      `# default image: built in ${(info.buildMs / 1000).toFixed(1)} s, ${(info.sizeBytes / 1e6).toFixed(0)} MB`,
    );
    assert.ok(info.sizeBytes > 50e6 && info.sizeBytes < 400e6, `${info.sizeBytes} bytes`);
    assert.ok(
      !readdirSync(join(TEST_DATA_DIR, "images")).some(
        (n) => n.startsWith(".build-") && n.endsWith(info.hash),
      ),
    );
  });

  test("has svc-user, the mount points, config files, and no caches, docs or host keys", () => {
    const at = (p: string) => join(rootfs, p);
    assert.match(
      readFileSync(at("etc/passwd"), "utf8"),
      /^svc-user:x:1500:1500::\/home\/svc-user:\/bin\/bash$/m,
    );
    assert.match(readFileSync(at("etc/group"), "utf8"), /^svc-user:x:1500:$/m);
    const home = statSync(at("home/svc-user"));
    assert.equal(home.uid, 1500);
    assert.equal(home.gid, 1500);
    assert.ok(existsSync(at("home/svc-user/.bashrc")));
    assert.equal(statSync(at("opt/svc")).isDirectory(), true);
    assert.equal(statSync(at("run/svc")).mode & 0o777, 0o700);
    assert.equal(readFileSync(at("etc/hostname"), "utf8"), "sandbox\n");
    assert.match(readFileSync(at("etc/hosts"), "utf8"), /^127\.0\.0\.1\tlocalhost$/m);
    assert.equal(existsSync(at("etc/resolv.conf")), false);
    assert.deepEqual(
      readdirSync(at("etc/ssh")).filter((n) => n.startsWith("ssh_host_")),
      [],
      "host keys are per sandbox",
    );
    assert.match(readFileSync(at("etc/ssh/sshd_config.d/svc.conf"), "utf8"), /PasswordAuthentication no/);
    assert.deepEqual(
      readdirSync(at("var/lib/apt/lists")).filter((n) => n !== "partial" && n !== "lock"),
      [],
    );
    assert.deepEqual(
      readdirSync(at("var/cache/apt/archives")).filter((n) => n.endsWith(".deb")),
      [],
    );
    assert.deepEqual(readdirSync(at("usr/share/man")), []);
    assert.deepEqual(
      readdirSync(at("usr/share/locale")).filter((n) => n !== "locale.alias"),
      [],
    );
    assert.deepEqual(readdirSync(at("usr/share/doc/bash")), ["copyright"]);
  });

  test("has the tools users expect, and sshd accepts its config", () => {
    const script = [
      "set -e",
      "bash --version | head -1",
      "python3 --version",
      "git --version",
      "curl --version | head -1",
      "ps --version",
      "ip -V",
      "less --version | head -1",
      "test -s /etc/ssl/certs/ca-certificates.crt",
      'ssh-keygen -q -t ed25519 -N "" -f /tmp/host_key',
      "/usr/sbin/sshd -t -o HostKey=/tmp/host_key && echo sshd-ok",
    ].join("\n");
    const result = spawnSync(
      "bwrap",
      [
        ...["--ro-bind", rootfs, "/", "--tmpfs", "/tmp", "--tmpfs", "/run", "--dir", "/run/sshd"],
        ...["--proc", "/proc", "--dev", "/dev", "--unshare-all", "--", "bash", "-c", script],
      ],
      { encoding: "utf8" },
    );
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /Python 3\.11/);
    assert.match(result.stdout, /^sshd-ok$/m);
  });
});

describe("image builds and removal", { skip: missingPrerequisite(["debootstrap", "flock", "mount"]) }, () => {
  const failing = { ...DEFAULT_IMAGE_RECIPE, version: -1, suite: "no-such-suite" };
  const deadMirror = () => `file://${join(scratch, "no-mirror")}`;

  test("concurrent calls share one build; a failed build leaves nothing behind", async () => {
    const dataDir = join(scratch, "failing");
    const progress: string[] = [];
    const options = { recipe: failing, mirror: deadMirror(), onProgress: (l: string) => progress.push(l) };
    const first = ensureDefaultImage(dataDir, options);
    const second = ensureDefaultImage(dataDir, options);
    assert.equal(first, second, "one promise for one build");
    await assert.rejects(first, /debootstrap/);
    assert.deepEqual(
      readdirSync(join(dataDir, "images")).filter((n) => !n.endsWith(".lock")),
      [],
      "no image and no build dir",
    );
    assert.ok(progress.some((l) => l.startsWith("building image default-")));
  });

  test("a build waits while another process holds the image's lock", async () => {
    const dataDir = join(scratch, "locked");
    const hash = imageRecipeHash(failing);
    const lock = await acquireFileLock(join(dataDir, "images", `.default-${hash}.lock`), { wait: false });
    assert.ok(lock);
    const progress: string[] = [];
    let settled = false;
    const build = ensureDefaultImage(dataDir, {
      recipe: failing,
      mirror: deadMirror(),
      onProgress: (l) => progress.push(l),
    });
    build
      .catch(() => {})
      .finally(() => {
        settled = true;
      });
    await new Promise((r) => setTimeout(r, 300));
    assert.equal(settled, false);
    assert.deepEqual(progress, [`waiting for another process building image default-${hash}`]);
    await lock.release();
    await assert.rejects(build, /debootstrap/);
  });

  test("removeUnusedImages removes old, unused images and dead builds only", async (t) => {
    const dataDir = join(scratch, "removal");
    const images = join(dataDir, "images");
    const make = (name: string) => mkdirSync(join(images, name, "rootfs", "bin"), { recursive: true });
    const current = `default-${imageRecipeHash()}`;
    for (const name of [
      current,
      "default-00000000000000aa",
      "default-00000000000000bb",
      "default-00000000000000cc",
    ]) {
      make(name);
    }
    make("custom/mine");
    // A build killed with a mount inside, and a build still running (its lock held).
    make(".build-default-00000000000000dd");
    execFileSync("mount", [
      "-t",
      "tmpfs",
      "tmpfs",
      join(images, ".build-default-00000000000000dd", "rootfs", "bin"),
    ]);
    make(".build-default-00000000000000ee");
    const running = await acquireFileLock(join(images, ".default-00000000000000ee.lock"), { wait: false });
    assert.ok(running);
    t.after(() => running.release());
    // An image mounted as an overlay's lower dir by some sandbox the caller forgot to list.
    const ov = join(scratch, "ov");
    for (const d of ["upper", "work", "root"]) mkdirSync(join(ov, d), { recursive: true });
    execFileSync("mount", [
      ...["-t", "overlay", "overlay", "-o"],
      `lowerdir=${join(images, "default-00000000000000cc", "rootfs")},upperdir=${ov}/upper,workdir=${ov}/work`,
      join(ov, "root"),
    ]);
    t.after(() => execFileSync("umount", [join(ov, "root")]));

    const result = await removeUnusedImages(dataDir, [join(images, "default-00000000000000bb", "rootfs")]);
    assert.deepEqual(result.removed.sort(), [
      join(images, ".build-default-00000000000000dd"),
      join(images, "default-00000000000000aa"),
    ]);
    assert.deepEqual(
      readdirSync(images)
        .filter((n) => !n.endsWith(".lock"))
        .sort(),
      [
        ".build-default-00000000000000ee",
        "custom",
        current,
        "default-00000000000000bb",
        "default-00000000000000cc",
      ].sort(),
    );
    assert.ok(!readMounts().some((m) => m.mountPoint.includes(".build-default-00000000000000dd")));
  });
});
