import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { once } from "node:events";
import { existsSync } from "node:fs";
import {
  chmod,
  chown,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { type IncomingHttpHeaders, type IncomingMessage, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import { after, before, describe, type TestContext, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { FORWARDED_AUTH_HEADER, signForwardedAuth } from "@svc/contract";
import { createDaemonApp, type DaemonApp } from "../app.ts";
import { registerFileRoutes } from "./routes.ts";
import { UPLOAD_TEMP_PREFIX } from "./write-file.ts";

const SECRET = "files-test-secret";
const SANDBOX_ID = "sbx-files";
const isRoot = process.getuid?.() === 0;
/** As root the daemon acts as a user that is not root; otherwise as the test's own user. */
const USER = isRoot
  ? { uid: 4242, gid: 4242 }
  : { uid: process.getuid?.() ?? 0, gid: process.getgid?.() ?? 0 };
const MiB = 1024 * 1024;

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

interface CallOptions {
  body?: Buffer | string | Readable;
  headers?: Record<string, string>;
  signed?: boolean;
}

let app: DaemonApp;
let port: number;
let home: string;

function send(method: string, pathAndQuery: string, options: CallOptions = {}): Promise<IncomingMessage> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.signed !== false) {
    headers[FORWARDED_AUTH_HEADER] = signForwardedAuth({
      secret: SECRET,
      sandboxId: SANDBOX_ID,
      method,
      pathAndQuery,
    });
  }
  const { body } = options;
  if (typeof body === "string" || Buffer.isBuffer(body))
    headers["content-length"] = String(Buffer.byteLength(body));
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, method, path: pathAndQuery, headers }, resolve);
    req.on("error", reject);
    if (body instanceof Readable) pipeline(body, req).catch(reject);
    else req.end(body);
  });
}

async function call(method: string, pathAndQuery: string, options: CallOptions = {}): Promise<Answer> {
  const response = await send(method, pathAndQuery, options);
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  return { status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) };
}

const fileUrl = (path: string) => `/api/v1/files?path=${encodeURIComponent(path)}`;
const listUrl = (path: string) => `/api/v1/files/list?path=${encodeURIComponent(path)}`;
const getFile = (path: string) => call("GET", fileUrl(path));
const putFile = (path: string, body: Buffer | string, headers: Record<string, string> = {}) =>
  call("PUT", fileUrl(path), { body, headers });
const deleteFile = (path: string) => call("DELETE", fileUrl(path));

interface Listing {
  path: string;
  entries: { name: string; is_dir: boolean; size: number; modified_at: number }[];
}
async function list(path: string): Promise<Listing> {
  const answer = await call("GET", listUrl(path));
  assert.equal(answer.status, 200, answer.body.toString());
  return JSON.parse(answer.body.toString()) as Listing;
}

function assertError(answer: Answer, status: number, code: string): void {
  assert.equal(answer.status, status, answer.body.toString());
  const body = JSON.parse(answer.body.toString()) as { code: string; error: string };
  assert.equal(body.code, code);
  assert.equal(typeof body.error, "string");
}

/** Files and directories the tests create that belong to root, not to the user. */
async function rootOwned(path: string, mode: number, content?: string): Promise<void> {
  if (content === undefined) await mkdir(path);
  else await writeFile(path, content);
  await chmod(path, mode);
}

/** Gives paths the tests made as root to the user, as if the user had made them. */
async function own(...paths: string[]): Promise<void> {
  if (!isRoot) return;
  for (const path of paths) await chown(path, USER.uid, USER.gid);
}

/** True when the test can run: root is needed. Skipped otherwise, but a failure when CI=true. */
function needsRoot(t: TestContext): boolean {
  if (isRoot) return true;
  if (process.env.CI === "true") assert.fail("this test must run as root in CI");
  t.skip("needs root");
  return false;
}

async function noUploadLeftovers(dir: string): Promise<void> {
  const deadline = Date.now() + 5000;
  for (;;) {
    const leftovers = (await readdir(dir)).filter((name) => name.startsWith(UPLOAD_TEMP_PREFIX));
    if (leftovers.length === 0) return;
    if (Date.now() > deadline) assert.fail(`temporary files left behind: ${leftovers.join(", ")}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

before(async () => {
  home = await mkdtemp(join(tmpdir(), "svc-files-home-"));
  if (isRoot) await chown(home, USER.uid, USER.gid);
  app = createDaemonApp({ authSecret: SECRET, sandboxId: SANDBOX_ID, logLevel: "silent" });
  registerFileRoutes(app, { defaultUser: { ...USER, home } });
  await app.listen({ host: "127.0.0.1", port: 0 });
  const address = app.server.address();
  port = typeof address === "object" && address ? address.port : 0;
});

after(async () => {
  await app.close();
  await rm(home, { recursive: true, force: true });
});

describe("auth", () => {
  test("every file route answers 401 without the proxy's forwarded auth", async () => {
    for (const [method, url] of [
      ["GET", fileUrl("a.txt")],
      ["PUT", fileUrl("a.txt")],
      ["DELETE", fileUrl("a.txt")],
      ["GET", listUrl(".")],
    ]) {
      assertError(await call(method, url, { signed: false, body: "x" }), 401, "UNAUTHORIZED");
    }
    assert.equal(existsSync(join(home, "a.txt")), false);
  });

  test("a signature for another path is refused", async () => {
    const header = signForwardedAuth({
      secret: SECRET,
      sandboxId: SANDBOX_ID,
      method: "GET",
      pathAndQuery: fileUrl("other.txt"),
    });
    const answer = await call("GET", fileUrl("a.txt"), {
      signed: false,
      headers: { [FORWARDED_AUTH_HEADER]: header },
    });
    assertError(answer, 401, "UNAUTHORIZED");
  });
});

describe("paths", () => {
  test("a relative path resolves against the user's home; parents are created, owned by the user", async () => {
    assert.equal((await putFile("notes/deep/a.txt", "hello")).status, 204);
    assert.equal(await readFile(join(home, "notes/deep/a.txt"), "utf8"), "hello");
    const answer = await getFile("notes/deep/a.txt");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["content-type"], "application/octet-stream");
    assert.equal(answer.headers["content-length"], "5");
    assert.equal(answer.body.toString(), "hello");
    for (const path of ["notes", "notes/deep", "notes/deep/a.txt"]) {
      const info = await stat(join(home, path));
      assert.deepEqual({ uid: info.uid, gid: info.gid }, USER, path);
    }
  });

  test("an absolute path is absolute in the sandbox", async () => {
    const bytes = Buffer.from(Array.from({ length: 512 }, (_, i) => i % 256));
    assert.equal((await putFile(join(home, "abs.bin"), bytes)).status, 204);
    assert.deepEqual((await getFile("abs.bin")).body, bytes);
    assert.deepEqual((await getFile(join(home, "abs.bin"))).body, bytes);
    assert.deepEqual((await getFile(`${home}//./abs.bin`)).body, bytes);
  });

  test("a '..' segment answers 403 PATH_TRAVERSAL before anything is touched, encoded or not", async () => {
    await writeFile(join(home, "target.txt"), "keep");
    const paths = ["..", "../etc/passwd", "made/../target.txt", `${home}/..`, "made/..", "/../etc/passwd"];
    for (const path of paths) {
      assertError(await getFile(path), 403, "PATH_TRAVERSAL");
      assertError(await putFile(path, "x"), 403, "PATH_TRAVERSAL");
      assertError(await deleteFile(path), 403, "PATH_TRAVERSAL");
      assertError(await call("GET", listUrl(path)), 403, "PATH_TRAVERSAL");
    }
    // Percent-encoded dots are decoded before the check.
    for (const query of [
      "%2e%2e",
      "%2E%2E%2Fetc%2Fpasswd",
      "made%2F%2e%2e%2Ftarget.txt",
      "made/%2e./target.txt",
    ]) {
      assertError(await call("GET", `/api/v1/files?path=${query}`), 403, "PATH_TRAVERSAL");
      assertError(await call("PUT", `/api/v1/files?path=${query}`, { body: "x" }), 403, "PATH_TRAVERSAL");
      assertError(await call("DELETE", `/api/v1/files?path=${query}`), 403, "PATH_TRAVERSAL");
    }
    assert.equal(existsSync(join(home, "made")), false);
    assert.equal(await readFile(join(home, "target.txt"), "utf8"), "keep");
  });

  test("names that only look like '..' are ordinary names", async () => {
    for (const name of ["...", "..hidden", "a..b", "dots../x", "sp ace+plus ü.txt", "%2e%2e"]) {
      assert.equal((await putFile(name, name)).status, 204, name);
      assert.equal((await getFile(name)).body.toString(), name);
    }
    assert.equal(await readFile(join(home, "%2e%2e"), "utf8"), "%2e%2e");
  });
});

describe("GET /api/v1/files", () => {
  test("404 for a missing file, 400 for a directory, 404 below a file", async () => {
    assertError(await getFile("missing.txt"), 404, "NOT_FOUND");
    assertError(await getFile("missing-dir/missing.txt"), 404, "NOT_FOUND");
    await mkdir(join(home, "a-dir"), { recursive: true });
    assertError(await getFile("a-dir"), 400, "IS_DIRECTORY");
    assertError(await getFile("/"), 400, "IS_DIRECTORY");
    assertError(await getFile("."), 400, "IS_DIRECTORY");
    await writeFile(join(home, "plain.txt"), "x");
    assertError(await getFile("plain.txt/inner"), 404, "NOT_FOUND");
  });

  test("an empty file has content-length 0", async () => {
    await writeFile(join(home, "empty.txt"), "");
    const answer = await getFile("empty.txt");
    assert.equal(answer.status, 200);
    assert.equal(answer.headers["content-length"], "0");
    assert.equal(answer.body.length, 0);
  });

  test("a FIFO is refused instead of blocking", async (t) => {
    if (!needsRoot(t)) return;
    execFileSync("mkfifo", [join(home, "fifo")]);
    await chown(join(home, "fifo"), USER.uid, USER.gid);
    assertError(await getFile("fifo"), 400, "INVALID_QUERY_PARAMS");
  });
});

describe("PUT /api/v1/files", () => {
  test("the body is stored raw whatever its Content-Type; an empty body makes an empty file", async () => {
    const json = '{"not": json';
    assert.equal((await putFile("data.json", json, { "content-type": "application/json" })).status, 204);
    assert.equal(await readFile(join(home, "data.json"), "utf8"), json);
    assert.equal((await putFile("text.txt", "plain", { "content-type": "text/plain" })).status, 204);
    assert.equal(await readFile(join(home, "text.txt"), "utf8"), "plain");
    assert.equal((await call("PUT", fileUrl("no-type.txt"), { body: "none" })).status, 204);
    assert.equal(await readFile(join(home, "no-type.txt"), "utf8"), "none");
    const chunked = Readable.from([Buffer.from("chun"), Buffer.from("ked")]);
    assert.equal((await call("PUT", fileUrl("chunked.txt"), { body: chunked })).status, 204);
    assert.equal(await readFile(join(home, "chunked.txt"), "utf8"), "chunked");
    assert.equal((await putFile("empty-put.txt", "")).status, 204);
    assert.equal((await stat(join(home, "empty-put.txt"))).size, 0);
  });

  test("replacing a file keeps its mode and leaves no temporary file", async () => {
    await putFile("replace.sh", "v1");
    await chmod(join(home, "replace.sh"), 0o750);
    assert.equal((await putFile("replace.sh", "version 2")).status, 204);
    const info = await stat(join(home, "replace.sh"));
    assert.equal(info.mode & 0o777, 0o750);
    assert.equal(await readFile(join(home, "replace.sh"), "utf8"), "version 2");
    await noUploadLeftovers(home);
  });

  test("400 IS_DIRECTORY onto a directory, 400 NOT_A_DIRECTORY below a file", async () => {
    await mkdir(join(home, "put-dir"), { recursive: true });
    assertError(await putFile("put-dir", "x"), 400, "IS_DIRECTORY");
    assertError(await putFile("put-dir/", "x"), 400, "IS_DIRECTORY");
    // A large body refused before it is read is drained, so the client still reads the answer.
    assertError(await putFile("put-dir", randomBytes(8 * MiB)), 400, "IS_DIRECTORY");
    await writeFile(join(home, "put-file"), "f");
    assertError(await putFile("put-file/child.txt", "x"), 400, "NOT_A_DIRECTORY");
    assertError(await putFile("put-file/a/b/child.txt", "x"), 400, "NOT_A_DIRECTORY");
    assert.equal(await readFile(join(home, "put-file"), "utf8"), "f");
    await noUploadLeftovers(join(home, "put-dir"));
  });

  test("a dropped upload leaves the old file and no partial one", async () => {
    await mkdir(join(home, "drop"));
    await writeFile(join(home, "drop/file.bin"), "old");
    await own(join(home, "drop"), join(home, "drop/file.bin"));
    const pathAndQuery = fileUrl("drop/file.bin");
    const req = request({
      host: "127.0.0.1",
      port,
      method: "PUT",
      path: pathAndQuery,
      headers: {
        "content-length": String(10 * MiB),
        [FORWARDED_AUTH_HEADER]: signForwardedAuth({
          secret: SECRET,
          sandboxId: SANDBOX_ID,
          method: "PUT",
          pathAndQuery,
        }),
      },
    });
    req.on("error", () => {});
    req.write(randomBytes(MiB));
    // Wait until the daemon has started the upload, then drop the connection.
    const deadline = Date.now() + 5000;
    while (!(await readdir(join(home, "drop"))).some((name) => name.startsWith(UPLOAD_TEMP_PREFIX))) {
      assert.ok(Date.now() < deadline, "the upload never started");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    req.destroy();
    await noUploadLeftovers(join(home, "drop"));
    assert.deepEqual(await readdir(join(home, "drop")), ["file.bin"]);
    assert.equal(await readFile(join(home, "drop/file.bin"), "utf8"), "old");
  });

  test("a full disk answers 507 NO_SPACE and leaves no partial file", async (t) => {
    if (!needsRoot(t)) return;
    const disk = join(home, "small-disk");
    await mkdir(disk);
    execFileSync("mount", [
      "-t",
      "tmpfs",
      "-o",
      `size=1m,mode=0755,uid=${USER.uid},gid=${USER.gid}`,
      "tmpfs",
      disk,
    ]);
    t.after(() => execFileSync("umount", [disk]));
    assert.equal((await putFile("small-disk/keep.txt", "keep")).status, 204);
    // Bigger than the disk, streamed: the daemon runs out of space mid-body and still answers.
    const blocks = Readable.from(
      (function* () {
        for (let i = 0; i < 4; i++) yield randomBytes(MiB);
      })(),
    );
    assertError(await call("PUT", fileUrl("small-disk/big.bin"), { body: blocks }), 507, "NO_SPACE");
    await noUploadLeftovers(disk);
    assert.deepEqual(await readdir(disk), ["keep.txt"]);
    // Replacing a file with more than fits keeps the old contents.
    assertError(await putFile("small-disk/keep.txt", randomBytes(2 * MiB)), 507, "NO_SPACE");
    assert.equal(await readFile(join(disk, "keep.txt"), "utf8"), "keep");
    await noUploadLeftovers(disk);
    // The connection is still usable and the disk writable once space is free.
    assert.equal((await putFile("small-disk/after.txt", "fits")).status, 204);
  });
});

describe("DELETE /api/v1/files", () => {
  test("204 and gone; 404 when missing; 400 IS_DIRECTORY for a directory", async () => {
    await writeFile(join(home, "doomed.txt"), "x");
    assert.equal((await deleteFile("doomed.txt")).status, 204);
    assert.equal(existsSync(join(home, "doomed.txt")), false);
    assertError(await deleteFile("doomed.txt"), 404, "NOT_FOUND");
    assertError(await deleteFile("nowhere/doomed.txt"), 404, "NOT_FOUND");
    await mkdir(join(home, "kept-dir"));
    assertError(await deleteFile("kept-dir"), 400, "IS_DIRECTORY");
    assert.ok(existsSync(join(home, "kept-dir")));
  });

  test("a symlink is removed itself, not its target", async () => {
    await writeFile(join(home, "link-target.txt"), "target");
    await symlink("link-target.txt", join(home, "to-target"));
    await mkdir(join(home, "dir-target"));
    await symlink("dir-target", join(home, "to-dir"));
    assert.equal((await deleteFile("to-target")).status, 204);
    assert.equal((await deleteFile("to-dir")).status, 204);
    assert.equal(existsSync(join(home, "to-target")), false);
    assert.equal(existsSync(join(home, "to-dir")), false);
    assert.equal(await readFile(join(home, "link-target.txt"), "utf8"), "target");
    assert.ok((await stat(join(home, "dir-target"))).isDirectory());
  });
});

describe("GET /api/v1/files/list", () => {
  test("lists entries sorted by name with size, is_dir and modified_at in epoch milliseconds", async () => {
    await mkdir(join(home, "listing/sub"), { recursive: true });
    await writeFile(join(home, "listing/b.txt"), "12345");
    await writeFile(join(home, "listing/a.txt"), "");
    const listing = await list("listing");
    assert.equal(listing.path, join(home, "listing"));
    assert.deepEqual(
      listing.entries.map(({ name, is_dir, size }) => ({ name, is_dir, ...(is_dir ? {} : { size }) })),
      [
        { name: "a.txt", is_dir: false, size: 0 },
        { name: "b.txt", is_dir: false, size: 5 },
        { name: "sub", is_dir: true },
      ],
    );
    const mtime = Math.trunc((await stat(join(home, "listing/b.txt"))).mtimeMs);
    const b = listing.entries.find((entry) => entry.name === "b.txt");
    assert.equal(b?.modified_at, mtime);
    assert.ok(Number.isInteger(b?.modified_at) && Math.abs(Date.now() - mtime) < 60_000);
    assert.deepEqual((await list(join(home, "listing"))).entries, listing.entries);
    assert.equal((await list(".")).path, home);
  });

  test("404 when missing, 400 NOT_A_DIRECTORY for a file", async () => {
    assertError(await call("GET", listUrl("no-such-dir")), 404, "NOT_FOUND");
    await writeFile(join(home, "list-file.txt"), "x");
    assertError(await call("GET", listUrl("list-file.txt")), 400, "NOT_A_DIRECTORY");
    assertError(await call("GET", listUrl("list-file.txt/below")), 400, "NOT_A_DIRECTORY");
  });

  test("symlinks are described by their target; a dangling one by itself; a linked directory lists", async () => {
    const dir = join(home, "links");
    await mkdir(join(dir, "real-dir"), { recursive: true });
    await writeFile(join(dir, "real-dir/inside.txt"), "inside");
    await writeFile(join(dir, "real.txt"), "123");
    await symlink("real-dir", join(dir, "dir-link"));
    await symlink(join(dir, "real.txt"), join(dir, "file-link"));
    await symlink("nowhere", join(dir, "dangling"));
    const entries = Object.fromEntries((await list("links")).entries.map((e) => [e.name, e]));
    assert.equal(entries["dir-link"].is_dir, true);
    assert.equal(entries["file-link"].is_dir, false);
    assert.equal(entries["file-link"].size, 3);
    assert.equal(entries.dangling.is_dir, false);
    assert.equal(entries.dangling.size, (await lstat(join(dir, "dangling"))).size);
    assert.deepEqual(
      (await list("links/dir-link")).entries.map((e) => e.name),
      ["inside.txt"],
    );
  });
});

describe("symlinks", () => {
  test("reads and writes go through a symlink to its target, relative or absolute, with '..' inside", async () => {
    await mkdir(join(home, "sl/real"), { recursive: true });
    await writeFile(join(home, "sl/real/file.txt"), "one");
    await own(join(home, "sl"), join(home, "sl/real"), join(home, "sl/real/file.txt"));
    await symlink("../sl/real", join(home, "sl/rel"));
    await symlink(join(home, "sl/real/file.txt"), join(home, "sl/abs"));
    assert.equal((await getFile("sl/rel/file.txt")).body.toString(), "one");
    assert.equal((await getFile("sl/abs")).body.toString(), "one");
    assert.equal((await putFile("sl/abs", "two")).status, 204);
    assert.ok((await lstat(join(home, "sl/abs"))).isSymbolicLink());
    assert.equal(await readFile(join(home, "sl/real/file.txt"), "utf8"), "two");
    // A dangling link's target is created.
    await symlink("created-through-link.txt", join(home, "sl/real/dangling"));
    assert.equal((await putFile("sl/rel/dangling", "three")).status, 204);
    assert.equal(await readFile(join(home, "sl/real/created-through-link.txt"), "utf8"), "three");
    // A loop is not followed forever.
    await symlink("loop-b", join(home, "sl/loop-a"));
    await symlink("loop-a", join(home, "sl/loop-b"));
    assertError(await getFile("sl/loop-a"), 404, "NOT_FOUND");
  });
});

describe("permissions: the routes act as the default user", () => {
  test("a root-only file can be neither read nor replaced; deleting it follows the directory's permissions", async (t) => {
    if (!needsRoot(t)) return;
    await rootOwned(join(home, "root-only.txt"), 0o600, "secret");
    assertError(await getFile("root-only.txt"), 403, "PERMISSION_DENIED");
    assertError(await putFile("root-only.txt", "overwritten"), 403, "PERMISSION_DENIED");
    assert.equal(await readFile(join(home, "root-only.txt"), "utf8"), "secret");
    // Deleting needs write permission on the directory, which the user has (its home): like `rm -f`.
    assert.equal((await deleteFile("root-only.txt")).status, 204);
    if (existsSync("/etc/shadow")) assertError(await getFile("/etc/shadow"), 403, "PERMISSION_DENIED");
  });

  test("a root-owned directory: readable if the mode says so, but not writable", async (t) => {
    if (!needsRoot(t)) return;
    const dir = join(home, "root-dir");
    await rootOwned(dir, 0o755);
    await rootOwned(join(dir, "public.txt"), 0o644, "public");
    assert.equal((await getFile("root-dir/public.txt")).body.toString(), "public");
    assert.equal((await list("root-dir")).entries.length, 1);
    assertError(await putFile("root-dir/new.txt", "x"), 403, "PERMISSION_DENIED");
    assertError(await putFile("root-dir/sub/new.txt", "x"), 403, "PERMISSION_DENIED");
    assertError(await putFile("root-dir/public.txt", "x"), 403, "PERMISSION_DENIED");
    assertError(await deleteFile("root-dir/public.txt"), 403, "PERMISSION_DENIED");
    assert.deepEqual(await readdir(dir), ["public.txt"]);
  });

  test("a directory the user cannot search hides even world-readable files", async (t) => {
    if (!needsRoot(t)) return;
    const dir = join(home, "private-dir");
    await rootOwned(dir, 0o700);
    await rootOwned(join(dir, "open.txt"), 0o644, "open");
    assertError(await getFile("private-dir/open.txt"), 403, "PERMISSION_DENIED");
    assertError(await call("GET", listUrl("private-dir")), 403, "PERMISSION_DENIED");
    if (existsSync("/root")) {
      const rootHome = await stat("/root");
      if ((rootHome.mode & 0o005) === 0)
        assertError(await call("GET", listUrl("/root")), 403, "PERMISSION_DENIED");
    }
  });

  test("group permission bits apply to the user's group", async (t) => {
    if (!needsRoot(t)) return;
    await rootOwned(join(home, "group.txt"), 0o640, "group");
    await chown(join(home, "group.txt"), 0, USER.gid);
    assert.equal((await getFile("group.txt")).body.toString(), "group");
    await chown(join(home, "group.txt"), 0, 0);
    assertError(await getFile("group.txt"), 403, "PERMISSION_DENIED");
  });

  test("in a sticky directory only the owner's own files can be removed", async (t) => {
    if (!needsRoot(t)) return;
    const dir = join(home, "sticky");
    await rootOwned(dir, 0o1777);
    await rootOwned(join(dir, "others.txt"), 0o666, "others");
    assertError(await deleteFile("sticky/others.txt"), 403, "PERMISSION_DENIED");
    assertError(await putFile("sticky/others.txt", "x"), 403, "PERMISSION_DENIED");
    assert.equal((await putFile("sticky/mine.txt", "mine")).status, 204);
    assert.equal((await stat(join(dir, "mine.txt"))).uid, USER.uid);
    assert.equal((await deleteFile("sticky/mine.txt")).status, 204);
  });

  test("a set-group-ID directory gives new entries its group", async (t) => {
    if (!needsRoot(t)) return;
    const dir = join(home, "setgid");
    await mkdir(dir);
    await chown(dir, USER.uid, 4343);
    await chmod(dir, 0o2775);
    assert.equal((await putFile("setgid/sub/file.txt", "x")).status, 204);
    for (const path of ["setgid/sub", "setgid/sub/file.txt"]) {
      const info = await stat(join(home, path));
      assert.deepEqual({ uid: info.uid, gid: info.gid }, { uid: USER.uid, gid: 4343 }, path);
    }
  });
});

describe("streaming", () => {
  test("a 200 MiB file goes up and comes back without the daemon holding it in memory", async (t) => {
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const size = 200 * MiB;
    const block = randomBytes(MiB);
    gc();
    const baseline = process.memoryUsage();
    let peakRss = baseline.rss;
    let peakBuffers = baseline.arrayBuffers;
    const sampler = setInterval(() => {
      const usage = process.memoryUsage();
      peakRss = Math.max(peakRss, usage.rss);
      peakBuffers = Math.max(peakBuffers, usage.arrayBuffers);
    }, 5);
    try {
      const sent = createHash("sha256");
      const body = Readable.from(
        (function* () {
          for (let i = 0; i < size / MiB; i++) {
            sent.update(block);
            yield block;
          }
        })(),
      );
      const put = await call("PUT", fileUrl("big/blob.bin"), { body });
      assert.equal(put.status, 204, put.body.toString());
      assert.equal((await stat(join(home, "big/blob.bin"))).size, size);

      const response = await send("GET", fileUrl("big/blob.bin"));
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers["content-length"], String(size));
      const received = createHash("sha256");
      let length = 0;
      response.on("data", (chunk: Buffer) => {
        received.update(chunk);
        length += chunk.length;
      });
      await once(response, "end");
      assert.equal(length, size);
      assert.equal(received.digest("hex"), sent.digest("hex"));
    } finally {
      clearInterval(sampler);
      await rm(join(home, "big"), { recursive: true, force: true });
    }
    const rssGrowth = (peakRss - baseline.rss) / MiB;
    const bufferGrowth = (peakBuffers - baseline.arrayBuffers) / MiB;
    t.diagnostic(
      `peak growth: rss ${rssGrowth.toFixed(1)} MiB, array buffers ${bufferGrowth.toFixed(1)} MiB`,
    );
    // Client and daemon share this process; holding the file would grow both figures by 200 MiB or more.
    assert.ok(rssGrowth < 100, `rss grew by ${rssGrowth.toFixed(1)} MiB`);
    assert.ok(bufferGrowth < 100, `array buffers grew by ${bufferGrowth.toFixed(1)} MiB`);
  });
});
