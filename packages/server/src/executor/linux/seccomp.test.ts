import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { closeSync, mkdtempSync, openSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import {
  BLOCKED_SYSCALLS,
  CLONE_NAMESPACE_FLAGS,
  ENOSYS,
  EPERM,
  runSeccompFilter,
  SECCOMP_RET_ALLOW,
  SECCOMP_RET_ERRNO,
  SECCOMP_RET_KILL_PROCESS,
  seccompFilter,
  seccompProgramBytes,
  writeSeccompFile,
} from "./seccomp.ts";
import { missingPrerequisite, testImageRootfs } from "./test-support.ts";

const ALLOW = SECCOMP_RET_ALLOW;
const DENY = SECCOMP_RET_ERRNO | EPERM;
const CLONE_NEWUSER = 0x10000000;
const CLONE_NEWNET = 0x40000000;
const SIGCHLD = 17;
const CLONE_THREAD_FLAGS = 0x3d0f00; // what glibc's pthread_create passes to clone

describe("seccomp program", () => {
  test("is a few hundred bytes of 8-byte instructions", () => {
    const bytes = seccompProgramBytes();
    assert.equal(bytes.length % 8, 0);
    assert.equal(bytes.length / 8, seccompFilter().length);
    assert.ok(bytes.length < 1024, `${bytes.length} bytes`);
    // First instruction: load the arch word (BPF_LD|BPF_W|BPF_ABS, k=4).
    assert.deepEqual([...bytes.subarray(0, 8)], [0x20, 0, 0, 0, 4, 0, 0, 0]);
  });

  test("denies every listed syscall with EPERM and allows the rest", () => {
    for (const [name, nr] of Object.entries(BLOCKED_SYSCALLS)) {
      assert.equal(runSeccompFilter({ nr }), DENY, name);
    }
    for (const nr of [0, 1, 2, 3, 9, 39, 57, 59, 61, 231, 257, 318, 334, 439]) {
      assert.equal(runSeccompFilter({ nr }), ALLOW, `syscall ${nr}`);
    }
  });

  test("clone: namespace flags denied, fork and threads allowed; clone3 ENOSYS", () => {
    assert.equal(runSeccompFilter({ nr: 56, args: [SIGCHLD] }), ALLOW);
    assert.equal(runSeccompFilter({ nr: 56, args: [CLONE_THREAD_FLAGS] }), ALLOW);
    assert.equal(runSeccompFilter({ nr: 56, args: [CLONE_NEWUSER | SIGCHLD] }), DENY);
    assert.equal(runSeccompFilter({ nr: 56, args: [CLONE_NEWNET] }), DENY);
    for (let bit = 0; bit < 32; bit++) {
      const flag = 2 ** bit;
      if (flag & CLONE_NAMESPACE_FLAGS)
        assert.equal(runSeccompFilter({ nr: 56, args: [flag] }), DENY, `bit ${bit}`);
    }
    assert.equal(runSeccompFilter({ nr: 435, args: [0, 88] }), SECCOMP_RET_ERRNO | ENOSYS);
  });

  test("ioctl: TIOCSTI and TIOCLINUX denied (also with high bits set), others allowed", () => {
    assert.equal(runSeccompFilter({ nr: 16, args: [0, 0x5412] }), DENY);
    assert.equal(runSeccompFilter({ nr: 16, args: [0, 0x541c] }), DENY);
    assert.equal(runSeccompFilter({ nr: 16, args: [0, 0x1_0000_5412n] }), DENY);
    assert.equal(runSeccompFilter({ nr: 16, args: [0, 0x5401] }), ALLOW); // TCGETS
    assert.equal(runSeccompFilter({ nr: 16, args: [0, 0x5413] }), ALLOW); // TIOCGWINSZ
  });

  test("another architecture is killed; x32 numbers denied", () => {
    assert.equal(runSeccompFilter({ nr: 1, arch: 0x40000003 }), SECCOMP_RET_KILL_PROCESS); // i386
    assert.equal(runSeccompFilter({ nr: 0x40000000 + 165 }), DENY);
    assert.equal(runSeccompFilter({ nr: 0x40000000 + 1 }), DENY);
  });
});

const skip = missingPrerequisite(["bwrap", "debootstrap"]);

/** Tries the syscalls in the sandbox's Python (ctypes), as root, and prints name=errno lines. */
const PROBE = `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
def probe(name, call):
    ctypes.set_errno(0)
    r = call()
    if r == 0 and name.startswith("clone"):
        os._exit(0)  # the child of a raw clone: only the parent reports
    print(f"{name}={ctypes.get_errno() if r == -1 else 'ok'}", flush=True)
    if r > 0 and name.startswith("clone"):
        os.waitpid(r, 0)
probe("unshare", lambda: libc.unshare(0x20000))
probe("mount", lambda: libc.mount(b"none", b"/mnt", b"tmpfs", 0, None))
probe("ptrace", lambda: libc.ptrace(0, 0, 0, 0))
probe("bpf", lambda: libc.syscall(321, 0, 0, 0))
probe("io_uring_setup", lambda: libc.syscall(425, 1, 0))
probe("keyctl", lambda: libc.syscall(250, 0, 0))
probe("setns", lambda: libc.syscall(308, 0, 0))
probe("clone3", lambda: libc.syscall(435, 0, 0))
probe("clone_newuser", lambda: libc.syscall(56, 0x10000000 | 17, 0, 0, 0, 0))
probe("clone_fork", lambda: libc.syscall(56, 17, 0, 0, 0, 0))
probe("tiocsti", lambda: libc.ioctl(0, 0x5412, ctypes.c_char_p(b"x")))
`;

describe("seccomp under bwrap", { skip }, () => {
  let image: string;
  let dir: string;

  before(async () => {
    image = await testImageRootfs();
    dir = mkdtempSync(join(tmpdir(), "svc-seccomp-"));
    await writeSeccompFile(join(dir, "filter.bpf"));
    writeFileSync(join(dir, "probe.py"), PROBE);
  });

  after(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function inSandbox(command: string[], withFilter = true) {
    const fd = openSync(join(dir, "filter.bpf"), "r");
    try {
      return spawnSync(
        "bwrap",
        [
          ...[
            "--ro-bind",
            image,
            "/",
            "--tmpfs",
            "/tmp",
            "--ro-bind",
            join(dir, "probe.py"),
            "/tmp/probe.py",
          ],
          ...["--proc", "/proc", "--dev", "/dev", "--unshare-pid", "--unshare-ipc", "--unshare-uts"],
          ...["--setenv", "HOME", "/tmp", "--setenv", "GIT_CONFIG_NOSYSTEM", "1"],
          ...(withFilter ? ["--seccomp", "3"] : []),
          "--",
          ...command,
        ],
        { stdio: ["ignore", "pipe", "pipe", fd], encoding: "utf8" },
      );
    } finally {
      closeSync(fd);
    }
  }

  test("EPERM for unshare, mount, ptrace and the rest, even as root with every capability", () => {
    const result = inSandbox(["python3", "/tmp/probe.py"]);
    assert.equal(result.status, 0, result.stderr);
    const seen = Object.fromEntries(
      result.stdout
        .trim()
        .split("\n")
        .map((l) => l.split("=")),
    );
    assert.deepEqual(seen, {
      unshare: "1",
      mount: "1",
      ptrace: "1",
      bpf: "1",
      io_uring_setup: "1",
      keyctl: "1",
      setns: "1",
      clone3: "38",
      clone_newuser: "1",
      clone_fork: "ok",
      tiocsti: "1",
    });
    // Without the filter the same root process may unshare and mount: the filter is what stops it.
    const unfiltered = inSandbox(["python3", "/tmp/probe.py"], false);
    assert.match(unfiltered.stdout, /^unshare=ok$/m);
    assert.match(unfiltered.stdout, /^mount=ok$/m);
  });

  test("ordinary programs work: bash, coreutils, python3 with threads, git", () => {
    const script = [
      "set -e",
      "echo $((6 * 7)) | tee /tmp/out | wc -c",
      "ls / | sort | head -1",
      'python3 -c "import threading, subprocess; t = threading.Thread(target=print, args=(\\"thread\\",)); t.start(); t.join(); print(subprocess.run([\\"true\\"]).returncode)"',
      "cd /tmp && git init -q repo && cd repo && git -c user.email=a@b -c user.name=a commit -q --allow-empty -m m && git log --oneline | wc -l",
      "sleep 0.01 & wait",
    ].join("\n");
    const result = inSandbox(["bash", "-c", script]);
    assert.equal(result.status, 0, result.stderr);
    assert.equal(result.stdout, "3\nbin\nthread\n0\n1\n");
  });

  test("the filter file is what bwrap reads", () => {
    // A truncated program is rejected by the kernel: bwrap fails rather than running unfiltered.
    const bad = join(dir, "bad.bpf");
    writeFileSync(bad, seccompProgramBytes().subarray(0, 12));
    const fd = openSync(bad, "r");
    try {
      const result = spawnSync("bwrap", ["--ro-bind", image, "/", "--seccomp", "3", "--", "true"], {
        stdio: ["ignore", "pipe", "pipe", fd],
        encoding: "utf8",
      });
      assert.notEqual(result.status, 0);
    } finally {
      closeSync(fd);
    }
    assert.ok(execFileSync("bwrap", ["--version"], { encoding: "utf8" }).startsWith("bubblewrap"));
  });
});
