import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { mkdir } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createRootfs, destroyRootfs, listLeftovers, writeSandboxFile } from "./disk.ts";
import { readMounts } from "./mounts.ts";
import { missingPrerequisite, testImageRootfs } from "./test-support.ts";

const skip = missingPrerequisite(["mkfs.ext4", "losetup", "mount", "debootstrap"]);

describe("sandbox root filesystem", { skip }, () => {
  let image: string;
  let base: string;

  before(async () => {
    image = await testImageRootfs();
    base = mkdtempSync(join(tmpdir(), "svc-disk-"));
  });

  after(async () => {
    if (!base) return;
    await destroyRootfs(base);
    assert.deepEqual(listLeftovers(base), { mounts: [], loopDevices: [] });
    rmSync(base, { recursive: true, force: true });
  });

  test("overlay on a sized ext4 image, files written into the upper dir, destroyed completely", async () => {
    const sandboxDir = join(base, "a");
    const setupStart = performance.now();
    const paths = await createRootfs({
      sandboxDir,
      imageRootfs: image,
      diskMb: 64,
      files: {
        "/etc/hostname": "box-a\n",
        "/etc/resolv.conf": "nameserver 10.0.0.1\n",
        "/run/svc-test/secret": { content: "s", mode: 0o600, uid: 1500, gid: 1500 },
      },
    });
    const setupMs = performance.now() - setupStart;

    // Files land in the upper dir; the image itself is untouched.
    assert.equal(readFileSync(join(paths.rootDir, "etc/hostname"), "utf8"), "box-a\n");
    assert.equal(readFileSync(join(paths.upperDir, "etc/hostname"), "utf8"), "box-a\n");
    assert.equal(readFileSync(join(image, "etc/hostname"), "utf8"), "sandbox\n");
    assert.equal(existsSync(join(image, "etc/resolv.conf")), false);
    const secret = statSync(join(paths.rootDir, "run/svc-test/secret"));
    assert.equal(secret.mode & 0o777, 0o600);
    assert.equal(secret.uid, 1500);
    // Directories created for a file keep the lower dir's metadata when they exist there.
    assert.equal(
      statSync(join(paths.upperDir, "etc")).mode & 0o7777,
      statSync(join(image, "etc")).mode & 0o7777,
    );
    // The image's content shows through.
    assert.ok(existsSync(join(paths.rootDir, "usr/bin/python3")));

    // The mounts: ext4 on a loop device (noatime, discard), overlay on top.
    const mounts = readMounts().filter((m) => m.mountPoint.startsWith(sandboxDir));
    assert.deepEqual(
      mounts.map((m) => [m.mountPoint, m.fsType]),
      [
        [paths.fsDir, "ext4"],
        [paths.rootDir, "overlay"],
      ],
    );
    assert.match(mounts[0].options, /noatime/);
    assert.match(mounts[0].superOptions, /discard/);
    assert.equal(listLeftovers(sandboxDir).loopDevices.length, 1);

    // The disk is sparse and really limited: writing past it fails with ENOSPC.
    assert.ok(statSync(paths.diskImage).blocks * 512 < 16 * 1024 * 1024, "sparse");
    const df = execFileSync("df", ["--output=size", "-B1M", paths.rootDir], { encoding: "utf8" });
    assert.ok(Number(df.trim().split("\n")[1]) <= 64);
    const big = Buffer.alloc(1024 * 1024, 1);
    const fd = openSync(join(paths.rootDir, "fill"), "w");
    let written = 0;
    assert.throws(
      () => {
        for (let i = 0; i < 100; i++) {
          writeFileSync(fd, big);
          written++;
        }
      },
      (e: NodeJS.ErrnoException) => e.code === "ENOSPC",
    );
    closeSync(fd);
    assert.ok(written >= 40 && written < 64, `${written} MiB fit`);

    const teardownStart = performance.now();
    await destroyRootfs(sandboxDir);
    const teardownMs = performance.now() - teardownStart;
    console.log(
      `# rootfs setup ${setupMs.toFixed(0)} ms, teardown ${teardownMs.toFixed(0)} ms (64 MiB disk)`,
    );
    assert.equal(existsSync(sandboxDir), false);
    assert.deepEqual(listLeftovers(sandboxDir), { mounts: [], loopDevices: [] });
    // Idempotent.
    await destroyRootfs(sandboxDir);
  });

  test("setup and teardown take about the same time at 1 GB and 50 GB", async () => {
    for (const diskMb of [1024, 50 * 1024]) {
      const times: number[][] = [];
      for (let i = 0; i < 3; i++) {
        const sandboxDir = join(base, `size-${diskMb}-${i}`);
        const t0 = performance.now();
        await createRootfs({ sandboxDir, imageRootfs: image, diskMb, files: { "/etc/hostname": "x\n" } });
        const t1 = performance.now();
        await destroyRootfs(sandboxDir);
        times.push([t1 - t0, performance.now() - t1]);
      }
      const median = (k: number) => times.map((t) => t[k]).sort((a, b) => a - b)[1];
      console.log(
        `# ${diskMb} MiB: setup ${median(0).toFixed(0)} ms, teardown ${median(1).toFixed(0)} ms (median of 3)`,
      );
    }
  });

  test("destroy finishes a half-made sandbox: loop device without autoclear, a busy mount", async () => {
    const sandboxDir = join(base, "half");
    const paths = await createRootfs({ sandboxDir, imageRootfs: image, diskMb: 32 });
    // An extra loop device attached by hand (no autoclear) and a second mount of it, as a crash could leave.
    const loop = execFileSync("losetup", ["--find", "--show", paths.diskImage], { encoding: "utf8" }).trim();
    await mkdir(join(sandboxDir, "extra"));
    execFileSync("mount", ["-o", "ro", loop, join(sandboxDir, "extra")]);
    // A file held open in the overlay keeps it busy: destroy falls back to a lazy unmount.
    const busy = openSync(join(paths.rootDir, "etc/hostname"), "r");
    try {
      await destroyRootfs(sandboxDir);
      assert.equal(existsSync(sandboxDir), false);
      assert.deepEqual(listLeftovers(sandboxDir).mounts, []);
    } finally {
      closeSync(busy);
    }
    // Once the last user is gone the loop devices go too (autoclear, or detached by destroy).
    const deadline = Date.now() + 5000;
    while (listLeftovers(sandboxDir).loopDevices.length && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(listLeftovers(sandboxDir), { mounts: [], loopDevices: [] });
  });

  test("a failed setup undoes itself", async () => {
    const sandboxDir = join(base, "bad");
    await assert.rejects(
      createRootfs({ sandboxDir, imageRootfs: join(base, "no-such-image"), diskMb: 32 }),
      /mount/,
    );
    assert.deepEqual(listLeftovers(sandboxDir), { mounts: [], loopDevices: [] });
    assert.equal(existsSync(join(sandboxDir, "disk.img")), false);
    await assert.rejects(createRootfs({ sandboxDir, imageRootfs: image, diskMb: 1 }), RangeError);
  });

  test("writeSandboxFile refuses paths that leave the root or pass through symlinks", async () => {
    const root = join(base, "plain-root");
    await mkdir(join(root, "etc"), { recursive: true });
    symlinkSync("/etc", join(root, "hostetc"));
    await assert.rejects(writeSandboxFile(root, "relative/path", "x"));
    await writeSandboxFile(root, "/../escape", "x"); // normalized: stays inside
    assert.equal(readFileSync(join(root, "escape"), "utf8"), "x");
    await assert.rejects(
      writeSandboxFile(root, "/hostetc/svc-test-should-not-exist", "x"),
      /not a directory/,
    );
    assert.equal(existsSync("/etc/svc-test-should-not-exist"), false);
    // A symlink at the file itself is replaced, not followed.
    symlinkSync("/etc/passwd", join(root, "etc/hostname"));
    await writeSandboxFile(root, "/etc/hostname", "box\n");
    assert.equal(readFileSync(join(root, "etc/hostname"), "utf8"), "box\n");
    assert.ok(readFileSync("/etc/passwd", "utf8").startsWith("root:"));
  });
});
