import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ServiceError } from "@svc/contract";
import { parsePasswd, resolveUser, UserDatabase } from "./users.ts";

const PASSWD = `root:x:0:0:root:/root:/bin/bash
# a comment
svc-user:x:1500:1500::/home/svc-user:/bin/bash
broken line
bin:x:2:2:bin:/bin:/usr/sbin/nologin
`;

function database(): { users: UserDatabase; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "svc-users-"));
  writeFileSync(join(dir, "passwd"), PASSWD);
  return { users: new UserDatabase(join(dir, "passwd")), cleanup: () => rmSync(dir, { recursive: true }) };
}

test("parsePasswd skips comments and malformed lines", () => {
  assert.deepEqual(
    parsePasswd(PASSWD).map((e) => e.name),
    ["root", "svc-user", "bin"],
  );
});

test("user forms resolve", () => {
  const { users, cleanup } = database();
  try {
    assert.deepEqual(resolveUser("svc-user", users), {
      name: "svc-user",
      uid: 1500,
      gid: 1500,
      home: "/home/svc-user",
    });
    assert.deepEqual(resolveUser("1500", users), {
      name: "svc-user",
      uid: 1500,
      gid: 1500,
      home: "/home/svc-user",
    });
    assert.deepEqual(resolveUser("1500:2", users), {
      name: "svc-user",
      uid: 1500,
      gid: 2,
      home: "/home/svc-user",
    });
    assert.deepEqual(resolveUser({ uid: 2, gid: 7 }, users), { name: "bin", uid: 2, gid: 7, home: "/bin" });
    assert.deepEqual(resolveUser({ uid: 4242 }, users), { name: "4242", uid: 4242, gid: 4242, home: "/" });
    assert.deepEqual(resolveUser({ name: "root", gid: 5 }, users), {
      name: "root",
      uid: 0,
      gid: 5,
      home: "/root",
    });
  } finally {
    cleanup();
  }
});

test("unknown users and bad forms are INVALID_USER", () => {
  const { users, cleanup } = database();
  try {
    for (const bad of ["nobody-here", "1:2:3", "-1", { uid: -1 }, { uid: 1, name: "root" }, [], 7, "a b"]) {
      assert.throws(
        () => resolveUser(bad, users),
        (error) => error instanceof ServiceError && error.code === "INVALID_USER",
        JSON.stringify(bad),
      );
    }
  } finally {
    cleanup();
  }
});

test("the database follows changes of the file", () => {
  const dir = mkdtempSync(join(tmpdir(), "svc-users-"));
  try {
    const path = join(dir, "passwd");
    writeFileSync(path, "root:x:0:0:root:/root:/bin/bash\n");
    const users = new UserDatabase(path);
    assert.equal(users.byName("late"), undefined);
    writeFileSync(path, "root:x:0:0:root:/root:/bin/bash\nlate:x:1600:1600::/home/late:/bin/sh\n");
    assert.equal(users.byName("late")?.uid, 1600);
  } finally {
    rmSync(dir, { recursive: true });
  }
});
