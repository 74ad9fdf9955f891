import assert from "node:assert/strict";
import { test } from "node:test";
import { FileAccess, groupsOf, READ, SEARCH, WRITE } from "./user-access.ts";

const user = { uid: 1000, gid: 1000, home: "/home/svc-user" };
const asRoot = new FileAccess(user, [1000, 27], 0);

test("groupsOf finds the user's supplementary groups in /etc/group", () => {
  const groupFile = [
    "root:x:0:",
    "sudo:x:27:admin,svc-user",
    "docker:x:999:svc-userx",
    "broken line",
    "svc-user:x:1000:",
    "",
  ].join("\n");
  assert.deepEqual([...groupsOf(groupFile, "svc-user", 1000)].sort(), [1000, 27]);
  assert.deepEqual([...groupsOf(groupFile, undefined, 1000)], [1000]);
});

test("the owner's bits apply to the owner, the group's to members, the others' to everyone else", () => {
  const file = { mode: 0o100640, uid: 1000, gid: 0 };
  assert.equal(asRoot.allows(file, READ | WRITE), true);
  assert.equal(asRoot.allows({ ...file, uid: 0, gid: 27 }, READ), true);
  assert.equal(asRoot.allows({ ...file, uid: 0, gid: 27 }, WRITE), false);
  assert.equal(asRoot.allows({ ...file, uid: 0 }, READ), false);
  // The owner class is used alone, even when the others' bits would allow more.
  assert.equal(asRoot.allows({ mode: 0o040007, uid: 1000, gid: 0 }, SEARCH), false);
  assert.equal(asRoot.allows({ mode: 0o040001, uid: 0, gid: 0 }, SEARCH), true);
});

test("the kernel decides alone when the daemon is not root or the user is root", () => {
  const rootOnly = { mode: 0o100600, uid: 0, gid: 0 };
  const notRoot = new FileAccess(user, [1000], 1000);
  assert.equal(notRoot.enforced, false);
  assert.equal(notRoot.allows(rootOnly, READ), true);
  assert.equal(notRoot.newOwner({ mode: 0o040755, gid: 0 }), undefined);
  const rootUser = new FileAccess({ ...user, uid: 0, gid: 0 }, [0], 0);
  assert.equal(rootUser.enforced, false);
  assert.deepEqual(rootUser.newOwner({ mode: 0o040755, gid: 5 }), { uid: 0, gid: 0 });
});

test("new entries belong to the user, with the directory's group when it is set-group-ID", () => {
  assert.deepEqual(asRoot.newOwner({ mode: 0o040755, gid: 5 }), { uid: 1000, gid: 1000 });
  assert.deepEqual(asRoot.newOwner({ mode: 0o042775, gid: 5 }), { uid: 1000, gid: 5 });
});

test("the sticky bit keeps others' entries", () => {
  const sticky = { mode: 0o041777, uid: 0, gid: 0 };
  assert.throws(() => asRoot.requireRemovable(sticky, { uid: 0 }, "/tmp/x"), { code: "PERMISSION_DENIED" });
  assert.doesNotThrow(() => asRoot.requireRemovable(sticky, { uid: 1000 }, "/tmp/x"));
  assert.doesNotThrow(() => asRoot.requireRemovable({ ...sticky, uid: 1000 }, { uid: 0 }, "/tmp/x"));
  assert.throws(() => asRoot.requireRemovable({ mode: 0o040755, uid: 0, gid: 0 }, { uid: 1000 }, "/x"), {
    code: "PERMISSION_DENIED",
  });
});

test("FileAccess.of reads /etc/group only when it has to", async () => {
  const withGroups = await FileAccess.of({ ...user, name: "svc-user", groups: [27] }, 0);
  assert.equal(withGroups.allows({ mode: 0o100040, uid: 0, gid: 27 }, READ), true);
  assert.equal(withGroups.allows({ mode: 0o100040, uid: 0, gid: 1000 }, READ), true);
  const plain = await FileAccess.of(user, 0);
  assert.equal(plain.allows({ mode: 0o100040, uid: 0, gid: 27 }, READ), false);
});
