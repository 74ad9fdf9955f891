import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, test } from "node:test";
import { createRootfs, destroyRootfs, listLeftovers, type RootfsPaths } from "./disk.ts";
import {
  bwrapArgs,
  DEFAULT_APP_ROOT,
  daemonCommand,
  launchSandboxProcess,
  SANDBOX_PATHS,
  warmCompileCache,
} from "./launch.ts";
import {
  createTestCgroups,
  createTestNetns,
  missingPrerequisite,
  REPO_ROOT,
  SANDBOX_TOOLS,
  type TestCgroups,
  testImageRootfs,
} from "./test-support.ts";

// A process launched below the executor, in a network namespace of its own: no firewall, so no nft.
const skip = missingPrerequisite(SANDBOX_TOOLS.filter((tool) => tool !== "nft"));

/** Runs inside the sandbox as the "daemon" and prints what it sees as one JSON line. */
const PROBE = String.raw`
import { spawn, spawnSync } from "node:child_process";
import { chownSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { hostname } from "node:os";
const fields = (text) => Object.fromEntries(text.split("\n").filter(Boolean).map((l) => l.split(/:\s*/)));
const attempt = (f) => { try { const v = f(); return v === undefined ? "ok" : v; } catch (e) { return e.code ?? String(e); } };
const run = (cmd, args, opts = {}) => {
  const r = spawnSync(cmd, args, { encoding: "utf8", ...opts });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
};
const self = fields(readFileSync("/proc/self/status", "utf8"));
const sleeper = spawn("sleep", ["30"], { uid: 1500, gid: 1500 });
await new Promise((r) => sleeper.once("spawn", r));
const result = {
  hostname: hostname(),
  uid: process.getuid(),
  gid: process.getgid(),
  caps: { eff: self.CapEff, prm: self.CapPrm, bnd: self.CapBnd, amb: self.CapAmb },
  noNewPrivs: self.NoNewPrivs,
  seccomp: self.Seccomp,
  processes: readdirSync("/proc").filter((n) => /^\d+$/.test(n)).map((p) => attempt(() => readFileSync("/proc/" + p + "/comm", "utf8").trim())),
  workVisible: existsSync("/work"),
  rootEntries: readdirSync("/root"),
  sysEntries: readdirSync("/sys"),
  procSysWrite: attempt(() => writeFileSync("/proc/sys/kernel/hostname", "x")),
  procKeys: attempt(() => readFileSync("/proc/keys", "utf8")),
  optSvcWrite: attempt(() => writeFileSync("/opt/svc/app/x", "")),
  secret: attempt(() => readFileSync("/run/svc/auth-secret", "utf8")),
  secretMode: (statSync("/run/svc/auth-secret").mode & 0o7777).toString(8),
  runSvcMode: (statSync("/run/svc").mode & 0o7777).toString(8),
  tmpMode: (statSync("/tmp").mode & 0o7777).toString(8),
  memoryCgroup: existsSync("/run/svc/memory-cgroup/memory.oom_control"),
  memoryCgroupWrite: attempt(() => writeFileSync("/run/svc/memory-cgroup/memory.limit_in_bytes", "1")),
  cgroup: readFileSync("/proc/self/cgroup", "utf8"),
  netDevices: readFileSync("/proc/net/dev", "utf8").split("\n").slice(2).filter(Boolean).map((l) => l.split(":")[0].trim()),
  env: process.env,
  userChild: run("sh", ["-c", "id -u; grep -E '^Cap(Eff|Prm|Amb)' /proc/self/status; cat /run/svc/auth-secret"], { uid: 1500, gid: 1500 }),
  rootChild: run("setpriv", ["--inh-caps=-all", "--", "sh", "-c", "id -u; grep -E '^Cap(Eff|Prm|Amb)' /proc/self/status; cat /run/svc/auth-secret"]),
  rootChildUnshare: run("setpriv", ["--inh-caps=-all", "--", "unshare", "--mount", "true"]),
  mount: run("mount", ["-t", "tmpfs", "none", "/mnt"]),
  writeUserHome: attempt(() => { writeFileSync("/home/svc-user/by-daemon", "x"); chownSync("/home/svc-user/by-daemon", 1500, 1500); }),
  killUserProcess: attempt(() => { process.kill(sleeper.pid, "SIGTERM"); }),
};
console.log("PROBE " + JSON.stringify(result));
`;

async function waitFor<T>(what: string, check: () => T | undefined, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

describe("launchSandboxProcess", { skip }, () => {
  let image: string;
  let base: string;
  let cgroups: TestCgroups;
  let netns: { name: string; remove(): void };
  let count = 0;

  before(async () => {
    image = await testImageRootfs();
    base = mkdtempSync(join(tmpdir(), "svc-launch-"));
    cgroups = createTestCgroups();
    netns = createTestNetns();
  });

  after(async () => {
    await cgroups?.remove();
    netns?.remove();
    if (base) {
      for (let i = 0; i < count; i++) await destroyRootfs(join(base, `sbx-${i}`));
      assert.deepEqual(listLeftovers(base), { mounts: [], loopDevices: [] });
      rmSync(base, { recursive: true, force: true });
    }
  });

  async function sandbox(files: Record<string, string> = {}): Promise<RootfsPaths> {
    return createRootfs({
      sandboxDir: join(base, `sbx-${count++}`),
      imageRootfs: image,
      diskMb: 256,
      files: { "/etc/hostname": "probe-box\n", ...files },
    });
  }

  test("isolates the daemon and leaves it only the capabilities it needs", async () => {
    const paths = await sandbox({ "/usr/local/lib/probe.mjs": PROBE });
    const started = performance.now();
    const launched = await launchSandboxProcess({
      sandboxDir: paths.sandboxDir,
      rootDir: paths.rootDir,
      hostname: "probe-box",
      netns: netns.name,
      cgroupProcs: cgroups.procs,
      // The shell lists the fds the command starts with, then becomes the probe.
      command: [
        "/bin/sh",
        "-c",
        `printf FDS; for f in /proc/$$/fd/*; do printf " %s" "\${f##*/}"; done; echo; exec ${SANDBOX_PATHS.nodeDir}/node /usr/local/lib/probe.mjs`,
      ],
      env: { SVC_TEST: "1" },
      authSecret: "the-secret",
      memoryCgroupDir: cgroups.dirs.memory,
    });
    const line = await waitFor("the probe's output", () =>
      readFileSync(launched.logFile, "utf8")
        .split("\n")
        .find((l) => l.startsWith("PROBE ")),
    );
    const ms = performance.now() - started;
    const probe = JSON.parse(line.slice("PROBE ".length));
    console.log(`# launch to a Node script's first output: ${ms.toFixed(0)} ms`);

    assert.equal(probe.hostname, "probe-box");
    assert.equal(probe.uid, 0);
    assert.equal(probe.gid, 0);
    // CHOWN, DAC_OVERRIDE, FOWNER, KILL, SETGID, SETUID
    assert.deepEqual(probe.caps, {
      eff: "00000000000000eb",
      prm: "00000000000000eb",
      bnd: "00000000000000eb",
      amb: "00000000000000eb",
    });
    assert.equal(probe.noNewPrivs, "1");
    assert.equal(probe.seccomp, "2");
    // Own pid namespace: bwrap's init, the probe, the uid-1500 sleep and nothing of the host.
    assert.ok(probe.processes.length <= 4, `processes: ${probe.processes}`);
    assert.ok(!probe.processes.includes("systemd") && !probe.processes.includes("init"));
    assert.equal(probe.workVisible, false);
    assert.deepEqual(probe.rootEntries, readdirImageRoot(image));
    assert.deepEqual(probe.sysEntries, []);
    assert.equal(probe.procSysWrite, "EROFS");
    assert.notEqual(probe.procKeys, "ok");
    assert.equal(probe.optSvcWrite, "EROFS");
    assert.equal(probe.secret, "the-secret");
    assert.equal(probe.secretMode, "0");
    assert.equal(probe.runSvcMode, "700");
    assert.equal(probe.tmpMode, "1777");
    assert.equal(probe.memoryCgroup, true);
    assert.equal(probe.memoryCgroupWrite, "EROFS");
    for (const line of probe.cgroup.trim().split("\n")) assert.match(line, /:\/$/, "cgroup namespace root");
    assert.deepEqual(probe.netDevices, ["lo"]);
    // Only stdin, stdout and stderr: the seccomp and secret fds are closed, nothing of the server leaks in.
    // (3 is the directory the shell is listing.)
    assert.match(readFileSync(launched.logFile, "utf8"), /^FDS 0 1 2 3$/m);
    // (PWD is the wrapper shell's.)
    assert.deepEqual(Object.keys(probe.env).sort(), ["HOME", "LANG", "PATH", "PWD", "SVC_TEST"]);

    // A user process as svc-user: no capabilities, no secret.
    assert.match(probe.userChild.stdout, /^1500\nCapPrm:\s+0+\nCapEff:\s+0+\nCapAmb:\s+0+\n$/);
    assert.match(probe.userChild.stderr, /Permission denied/);
    // A user process as root, started through setpriv --inh-caps=-all: no capabilities, no secret.
    assert.match(probe.rootChild.stdout, /^0\nCapPrm:\s+0+\nCapEff:\s+0+\nCapAmb:\s+0+\n$/);
    assert.match(probe.rootChild.stderr, /Permission denied/);
    assert.notEqual(probe.rootChildUnshare.status, 0);
    // Seccomp stops mount even with the capabilities the daemon has.
    assert.notEqual(probe.mount.status, 0);
    // What the daemon's capabilities are for.
    assert.equal(probe.writeUserHome, "ok");
    assert.equal(probe.killUserProcess, "ok");

    // The outer process is in the sandbox's cgroups and ends with its command.
    const outer = await Promise.race([
      launched.exited,
      new Promise((r) => setTimeout(() => r("timeout"), 10_000)),
    ]);
    assert.deepEqual(outer, { code: 0, signal: null });
  });

  async function startDaemon(compileCacheDir?: string): Promise<{ ms: number; pid: number }> {
    const paths = await sandbox();
    const started = Date.now();
    const launched = await launchSandboxProcess({
      sandboxDir: paths.sandboxDir,
      rootDir: paths.rootDir,
      hostname: "daemon-box",
      netns: netns.name,
      cgroupProcs: cgroups.procs,
      command: daemonCommand({ sandboxId: "sbx-test", memoryCgroup: true }),
      authSecret: "secret-for-the-daemon",
      memoryCgroupDir: cgroups.dirs.memory,
      compileCacheDir,
    });
    // Poll from inside the sandbox's network namespace (it has no veth here).
    const poll = `const t0 = ${started};
      for (let i = 0; i < 2000; i++) {
        try { const r = await fetch("http://127.0.0.1:9501/api/v1/health"); if (r.ok) { console.log(Date.now() - t0, r.status); process.exit(0); } } catch {}
        await new Promise((r) => setTimeout(r, 5));
      }
      process.exit(1);`;
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn("nsenter", [
        `--net=/run/netns/${netns.name}`,
        process.execPath,
        "--input-type=module",
        "-e",
        poll,
      ]);
      let out = "";
      child.stdout.on("data", (d) => {
        out += d;
      });
      child.on("close", (code) =>
        code === 0
          ? resolve(out)
          : reject(new Error(`no health answer: ${readFileSync(launched.logFile, "utf8")}`)),
      );
    });
    assert.match(output, /^\d+ 200\n$/);
    assert.ok(processAlive(launched.pid));
    const members = readFileSync(`${cgroups.dirs.pids}/cgroup.procs`, "utf8").trim().split("\n").map(Number);
    assert.ok(members.includes(launched.pid), "the outer process joined the cgroup");
    const cmdline = readFileSync(`/proc/${launched.pid}/cmdline`, "utf8");
    assert.ok(!cmdline.includes("secret-for-the-daemon"), "the secret is not on a command line");
    await cgroups.kill();
    return { ms: Number(output.split(" ")[0]), pid: launched.pid };
  }

  test("the real daemon starts and answers its health check, faster with a compile cache", async () => {
    const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    const cacheDir = join(base, "compile-cache");
    const warmMs = await warmCompileCache({ cacheDir, imageRootfs: image });
    const cold: number[] = [];
    const cached: number[] = [];
    for (let i = 0; i < 3; i++) {
      cold.push((await startDaemon()).ms);
      cached.push((await startDaemon(cacheDir)).ms);
    }
    console.log(
      `# launch to the daemon's first health answer (median of 3): ${median(cold)} ms; with a compile cache` +
        ` ${median(cached)} ms (warming it: ${warmMs.toFixed(0)} ms)`,
    );
  });

  test("the sandbox outlives the process that launched it", async () => {
    const paths = await sandbox();
    const script = join(base, "launcher.ts");
    writeFileSync(
      script,
      `import { launchSandboxProcess } from ${JSON.stringify(join(import.meta.dirname, "launch.ts"))};
       const l = await launchSandboxProcess(${JSON.stringify({
         sandboxDir: paths.sandboxDir,
         rootDir: paths.rootDir,
         hostname: "orphan",
         netns: netns.name,
         cgroupProcs: cgroups.procs,
         command: ["/bin/sleep", "60"],
       })});
       console.log(l.pid);`,
    );
    const launcher = spawn(process.execPath, [script], { stdio: ["ignore", "pipe", "inherit"] });
    let out = "";
    launcher.stdout.on("data", (d) => {
      out += d;
    });
    const code = await new Promise((r) => launcher.on("close", r));
    assert.equal(code, 0, "the launcher exits on its own (nothing keeps its event loop alive)");
    const pid = Number(out.trim());
    assert.ok(pid > 0);
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(processAlive(pid), "the sandbox survives its launcher");
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const [, ppid, , session] = stat
      .slice(stat.lastIndexOf(")") + 2)
      .split(" ")
      .map(Number);
    assert.notEqual(ppid, launcher.pid);
    assert.equal(session, pid, "own session");
    await cgroups.kill();
    // Its new parent (init or a subreaper) reaps it.
    await waitFor("the orphan to be reaped", () => (processAlive(pid) ? undefined : true), 5000);
  });

  test("bwrapArgs binds the node binary, the daemon's code and the secret as documented", () => {
    const args = bwrapArgs({
      sandboxDir: "/x",
      rootDir: "/x/root",
      hostname: "h",
      netns: "n",
      cgroupProcs: [],
      command: ["/bin/true"],
      authSecret: "s",
    });
    const text = args.join(" ");
    assert.ok(text.includes(`--ro-bind ${join(process.execPath, "..")} /opt/svc/node`));
    assert.ok(text.includes(`--ro-bind ${DEFAULT_APP_ROOT}/packages/daemon /opt/svc/app/packages/daemon`));
    assert.ok(text.includes("--perms 0000 --ro-bind-data 4 /run/svc/auth-secret"));
    assert.ok(!text.includes("die-with-parent"));
    assert.ok(!text.includes(" s "), "the secret itself is never an argument");
    assert.equal(DEFAULT_APP_ROOT, REPO_ROOT);
    assert.throws(() => bwrapArgs({ ...baseSpec(), hostname: "bad host" }));
  });
});

function baseSpec() {
  return {
    sandboxDir: "/x",
    rootDir: "/x/root",
    hostname: "h",
    netns: "n",
    cgroupProcs: [],
    command: ["/bin/true"],
  };
}

function readdirImageRoot(image: string): string[] {
  return execFileSync("ls", ["-A", join(image, "root")], { encoding: "utf8" })
    .split("\n")
    .filter(Boolean);
}
