import assert from "node:assert/strict";
import { execFile, execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { promisify } from "node:util";
import { controlApi } from "../api.testing.ts";
import { startTestServer, type TestServer } from "../testing.ts";
import { LocalFileSystemStorage } from "./storage.ts";

const execFileAsync = promisify(execFile);

/** A tar (or tar.gz) of a directory made with these files. */
function tarOf(files: Record<string, string>, gzip = false): Buffer {
  const dir = mkdtempSync(path.join(tmpdir(), "svc-fs-tar-"));
  try {
    for (const [name, content] of Object.entries(files)) {
      mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      writeFileSync(path.join(dir, name), content);
    }
    return execFileSync("tar", [gzip ? "-cz" : "-c", "-C", dir, "."]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Named file systems through the control API, on a server that runs no sandboxes. */
describe("file systems API", () => {
  let server: TestServer;
  let otherKey: string;
  before(async () => {
    server = await startTestServer({ executor: "none", maxFileBytes: 1024 * 1024 });
    const org = await server.store.projects.ensureOrganization("default");
    const other = await server.store.projects.create(org.id, "fs-other");
    otherKey = (await server.store.apiKeys.create({ projectId: other.id })).key;
  });
  after(() => server?.stop());

  const call = (method: string, path: string, body?: unknown, options: { key?: string; raw?: Buffer } = {}) =>
    controlApi(server)(method, path, body, options);

  test("create, list, delete; names are letters, digits, _ and -, unique per project", async () => {
    const created = await call("POST", "/file-systems", { name: "data_1", description: "d" });
    assert.equal(created.status, 200);
    assert.match(created.json.id, /^fs_[a-z2-7]{26}$/);
    assert.equal(created.json.status, "ready");
    assert.match(created.json.created_at, /^\d{4}-\d\d-\d\dT/);
    assert.equal((await call("POST", "/file-systems", { name: "data_1" })).status, 409);
    for (const name of ["bad name", "dots.not", "", "x/y", "é"]) {
      assert.equal((await call("POST", "/file-systems", { name })).status, 400, name);
    }
    const listed = await call("GET", "/file-systems");
    assert.deepEqual(
      listed.json.file_systems.map((f: { name: string }) => f.name),
      ["data_1"],
    );
    assert.deepEqual(
      (await call("GET", "/file-systems", undefined, { key: otherKey })).json.file_systems,
      [],
    );
    // Another project may use the same name; it is a different file system.
    assert.equal((await call("POST", "/file-systems", { name: "data_1" }, { key: otherKey })).status, 200);
    assert.equal((await call("DELETE", "/file-systems/data_1")).status, 204);
    assert.equal((await call("DELETE", "/file-systems/data_1")).status, 404);
    assert.equal((await call("GET", "/file-systems/data_1/tree")).status, 404);
  });

  test("content: put, get, delete, tree; 1 MiB limit; paths stay inside", async () => {
    await call("POST", "/file-systems", { name: "content" });
    const bytes = Buffer.from([0, 1, 2, 255, 254]);
    assert.equal(
      (await call("PUT", "/file-systems/content/files?path=a/b/c.bin", undefined, { raw: bytes })).status,
      204,
    );
    const got = await call("GET", "/file-systems/content/files?path=/a/b/c.bin");
    assert.equal(got.status, 200);
    assert.deepEqual(got.bytes, bytes);
    const tree = await call("GET", "/file-systems/content/tree");
    assert.deepEqual(
      tree.json.entries.map((e: { path: string; is_dir: boolean; size: number }) => [e.path, e.is_dir]),
      [
        ["a", true],
        ["a/b", true],
        ["a/b/c.bin", false],
      ],
    );
    for (const bad of ["../etc/passwd", "a/../../x", "a/%00"]) {
      const response = await call("GET", `/file-systems/content/files?path=${encodeURIComponent(bad)}`);
      assert.ok([403, 404].includes(response.status), `${bad}: ${response.status}`);
    }
    assert.equal((await call("GET", "/file-systems/content/files?path=a")).json.code, "IS_DIRECTORY");
    assert.equal((await call("GET", "/file-systems/content/files?path=nope")).json.code, "NOT_FOUND");
    const big = Buffer.alloc(1024 * 1024 + 1);
    const tooBig = await call("PUT", "/file-systems/content/files?path=big", undefined, { raw: big });
    assert.equal(tooBig.status, 413);
    assert.equal(
      (await call("GET", "/file-systems/content/files?path=big")).status,
      404,
      "nothing half-written",
    );
    assert.equal((await call("DELETE", "/file-systems/content/files?path=a/b/c.bin")).status, 204);
    assert.equal((await call("GET", "/file-systems/content/files?path=a/b/c.bin")).status, 404);
    // Another project's key sees no such file system.
    assert.equal((await call("GET", "/file-systems/content/tree", undefined, { key: otherKey })).status, 404);
  });

  test("a symbolic link planted in a tree (as a sandbox could) leads nowhere outside it", async () => {
    const created = await call("POST", "/file-systems", { name: "links" });
    const head = new LocalFileSystemStorage(server.dataDir).localPath(created.json.id);
    symlinkSync("/etc", path.join(head, "etc"));
    symlinkSync("/etc/hostname", path.join(head, "hostname"));
    for (const p of ["etc/hostname", "hostname"]) {
      const response = await call("GET", `/file-systems/links/files?path=${p}`);
      assert.equal(response.status, 403, p);
      assert.equal(response.json.code, "PATH_TRAVERSAL");
    }
    const write = await call("PUT", "/file-systems/links/files?path=etc/svc-test", undefined, {
      raw: Buffer.from("x"),
    });
    assert.equal(write.status, 403);
    assert.throws(() => readFileSync("/etc/svc-test"), "nothing was written through the link");
    const tree = await call("GET", "/file-systems/links/tree");
    assert.deepEqual(
      tree.json.entries.map((e: { path: string }) => e.path),
      ["etc", "hostname"],
      "links are listed, never followed",
    );
  });

  test("push replaces the head; a message makes a permanent snapshot that later writes leave alone", async () => {
    await call("POST", "/file-systems", { name: "pushed" });
    await call("PUT", "/file-systems/pushed/files?path=old.txt", undefined, { raw: Buffer.from("old") });
    const plain = await call("POST", "/file-systems/pushed/push", undefined, {
      raw: tarOf({ "v1.txt": "one" }),
    });
    assert.equal(plain.status, 200);
    assert.equal(plain.json.snapshot_id, null, "a push without a message is not a snapshot");
    assert.equal(
      (await call("GET", "/file-systems/pushed/files?path=old.txt")).status,
      404,
      "replaced whole",
    );
    const pushed = await call("POST", "/file-systems/pushed/push?message=release%201", undefined, {
      raw: tarOf({ "v2.txt": "two", "dir/deep.txt": "deep" }, true),
    });
    assert.equal(pushed.status, 200);
    const snapshotId = pushed.json.snapshot_id;
    assert.match(snapshotId, /^fsnap_/);
    assert.equal(
      (await call("GET", "/file-systems/pushed/files?path=dir/deep.txt")).bytes.toString(),
      "deep",
    );
    // The head changes; the snapshot does not.
    await call("PUT", "/file-systems/pushed/files?path=v2.txt", undefined, { raw: Buffer.from("changed") });
    await call("DELETE", "/file-systems/pushed/files?path=dir/deep.txt");
    const explicit = await call("POST", "/file-systems/pushed/snapshots", { message: "after" });
    assert.equal(explicit.status, 200);
    assert.equal(explicit.json.permanent, true);
    const list = await call("GET", "/file-systems/pushed/snapshots");
    assert.deepEqual(
      list.json.snapshots.map((s: { snapshot_id: string; message: string }) => [s.snapshot_id, s.message]),
      [
        [snapshotId, "release 1"],
        [explicit.json.snapshot_id, "after"],
      ],
    );
    const fsId = (await call("GET", "/file-systems")).json.file_systems.find(
      (f: { name: string }) => f.name === "pushed",
    ).id;
    const snapshotDir = new LocalFileSystemStorage(server.dataDir).localPath(fsId, snapshotId);
    assert.equal(readFileSync(path.join(snapshotDir, "v2.txt"), "utf8"), "two");
    assert.equal(readFileSync(path.join(snapshotDir, "dir/deep.txt"), "utf8"), "deep");
    // An empty snapshot call (no body) is the same as {}.
    assert.equal((await call("POST", "/file-systems/pushed/snapshots")).status, 200);
  });

  test("a body that is not a tar is 400 INVALID_FILE, and the head is kept", async () => {
    await call("POST", "/file-systems", { name: "kept" });
    await call("PUT", "/file-systems/kept/files?path=keep.txt", undefined, { raw: Buffer.from("k") });
    const bad = await call("POST", "/file-systems/kept/push", undefined, {
      raw: Buffer.from("not a tar at all"),
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.json.code, "INVALID_FILE");
    assert.equal((await call("GET", "/file-systems/kept/files?path=keep.txt")).bytes.toString(), "k");
  });

  test("raw uploads with curl: --data-binary (form-urlencoded), -T (no type), and any other type", async () => {
    await call("POST", "/file-systems", { name: "curled" });
    const dir = mkdtempSync(path.join(tmpdir(), "svc-fs-curl-"));
    try {
      const local = path.join(dir, "local.bin");
      // Bytes a form parser or a text decoder would mangle: '&', '=', '+', '%', a NUL and invalid UTF-8.
      const bytes = Buffer.concat([Buffer.from("a=1&b=2+3%20\n"), Buffer.from([0, 0xff, 0xfe, 0x80])]);
      writeFileSync(local, bytes);
      const url = (name: string) => `${server.url}/file-systems/curled/files?path=${name}`;
      // Asynchronous: the server answering curl runs in this process.
      const curl = async (args: string[]) =>
        (
          await execFileAsync("curl", ["-sS", "-o", "/dev/null", "-w", "%{http_code}", ...args], {
            env: { PATH: process.env.PATH ?? "" },
          })
        ).stdout;
      const auth = ["-H", `Authorization: Bearer ${server.apiKey}`];
      assert.equal(
        await curl([...auth, "-X", "PUT", "--data-binary", `@${local}`, url("data-binary.bin")]),
        "204",
      );
      assert.equal(await curl([...auth, "-T", local, url("upload-file.bin")]), "204");
      assert.equal(
        await curl([...auth, "-T", local, "-H", "Content-Type: application/json", url("labelled-json.bin")]),
        "204",
      );
      assert.equal(
        await curl([...auth, "-T", local, "-H", "Content-Type: text/plain; charset=utf-8", url("text.bin")]),
        "204",
      );
      for (const name of ["data-binary.bin", "upload-file.bin", "labelled-json.bin", "text.bin"]) {
        const read = await call("GET", `/file-systems/curled/files?path=${name}`);
        assert.equal(read.status, 200, name);
        assert.deepEqual(read.bytes, bytes, name);
      }
      // A push (tar) with no Content-Type reads the same way.
      writeFileSync(path.join(dir, "tree.tar"), tarOf({ "t.txt": "from a tar" }));
      assert.equal(
        await curl([
          ...auth,
          "-X",
          "POST",
          "-T",
          path.join(dir, "tree.tar"),
          `${server.url}/file-systems/curled/push`,
        ]),
        "200",
      );
      assert.equal(
        (await call("GET", "/file-systems/curled/files?path=t.txt")).bytes.toString(),
        "from a tar",
      );
      // The key is still checked first.
      assert.equal(await curl(["-T", local, url("nokey.bin")]), "401");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
