import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { stepKey } from "./build-cache.ts";
import { ContextError, contextPath, readContextTar, sourcesDigest } from "./context-tar.ts";

/** A tar made by GNU tar of these files (and links), with extra tar flags. */
function tarOf(
  files: Record<string, string>,
  flags: string[] = [],
  links: Record<string, string> = {},
): Buffer {
  const dir = mkdtempSync(join(tmpdir(), "svc-context-"));
  try {
    for (const [path, text] of Object.entries(files)) {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), text);
    }
    for (const [path, target] of Object.entries(links)) symlinkSync(target, join(dir, path));
    return execFileSync("tar", ["-C", dir, ...flags, "-cf", "-", "."], { maxBuffer: 16 * 1048576 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test("a context tar reads into normalised entries: plain, gzip, long names (GNU and pax)", () => {
  const long = `${"d".repeat(120)}/${"f".repeat(120)}.txt`;
  const files = { Dockerfile: "FROM default\n", "src/a.txt": "a\n", [long]: "long\n" };
  for (const flags of [[], ["-z"], ["--format=posix"], ["--format=gnu"]]) {
    const entries = readContextTar(tarOf(files, flags));
    const paths = entries.map((e) => e.path);
    assert.ok(
      paths.includes("Dockerfile") && paths.includes("src/a.txt") && paths.includes(long),
      paths.join(),
    );
    assert.ok(paths.includes("src") && !paths.some((p) => p.startsWith("./") || p === "."), paths.join());
    const dockerfile = entries.find((e) => e.path === "Dockerfile");
    assert.equal(dockerfile?.data?.toString(), "FROM default\n");
    assert.equal(dockerfile?.type, "file");
  }
  assert.deepEqual(readContextTar(Buffer.alloc(0)), []);
});

test("paths never leave the context: `..` and absolute names are refused", () => {
  assert.equal(contextPath("./a/./b/"), "a/b");
  assert.equal(contextPath("."), null);
  assert.equal(contextPath("a/../b"), "b");
  assert.throws(() => contextPath("../etc/passwd"), ContextError);
  assert.throws(() => contextPath("a/../../x"), /outside/);
  assert.throws(() => contextPath("/etc/passwd"), /absolute/);
  const escaping = tarOf({ "x.txt": "x" }, ["--transform=s|^\\./x.txt|../x.txt|"]);
  assert.throws(() => readContextTar(escaping), /outside/);
  assert.throws(() => readContextTar(Buffer.from("not a tar at all".repeat(64))), ContextError);
  assert.throws(() => readContextTar(Buffer.from([0x1f, 0x8b, 1, 2, 3])), /gzip/);
});

test("a COPY's digest covers the files it takes, globs included, and nothing else", () => {
  const entries = readContextTar(
    tarOf({ "app/main.py": "print(1)\n", "app/lib/x.py": "x\n", "README.md": "r\n" }, [], {
      "app/link": "/etc/shadow",
    }),
  );
  const app = sourcesDigest(entries, ["app/"]);
  assert.equal(sourcesDigest(entries, ["./app"]), sourcesDigest(entries, ["app"]));
  const changed = readContextTar(
    tarOf({ "app/main.py": "print(2)\n", "app/lib/x.py": "x\n", "README.md": "r\n" }, [], {
      "app/link": "/etc/shadow",
    }),
  );
  assert.notEqual(sourcesDigest(changed, ["app/"]), app, "a changed file changes the key");
  assert.equal(
    sourcesDigest(changed, ["README.md"]),
    sourcesDigest(entries, ["README.md"]),
    "other files do not",
  );
  assert.notEqual(
    sourcesDigest(changed, ["app/*.py"]),
    sourcesDigest(entries, ["app/*.py"]),
    "a glob takes main.py",
  );
  const libChanged = readContextTar(
    tarOf({ "app/main.py": "print(1)\n", "app/lib/x.py": "y\n", "README.md": "r\n" }, [], {
      "app/link": "/etc/shadow",
    }),
  );
  assert.equal(sourcesDigest(libChanged, ["app/*.py"]), sourcesDigest(entries, ["app/*.py"]), "not lib/x.py");
  assert.equal(entries.find((e) => e.path === "app/link")?.linkName, "/etc/shadow", "a link stays a link");
  assert.throws(() => sourcesDigest(entries, ["missing.txt"]), /not in the build context/);
  assert.throws(() => sourcesDigest(entries, ["../outside"]), /outside/);
});

test("a step key chains its parent: the same instruction after another parent is another key", () => {
  const a = stepKey("base", { kind: "run", command: ["true"] });
  assert.equal(a, stepKey("base", { kind: "run", command: ["true"] }));
  assert.notEqual(a, stepKey("other", { kind: "run", command: ["true"] }));
  assert.notEqual(a, stepKey("base", { kind: "run", command: ["true"] }, "inputs"));
});
