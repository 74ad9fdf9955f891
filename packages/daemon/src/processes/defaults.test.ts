import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { readProcessDefaults } from "./defaults.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-defaults-"));
after(() => rmSync(dir, { recursive: true, force: true }));
const passwd = join(dir, "passwd");
writeFileSync(passwd, "root:x:0:0:root:/root:/bin/sh\napp:x:1000:1000::/home/app:/bin/sh\n");

function read(text: string | null) {
  const file = join(dir, "defaults.json");
  rmSync(file, { force: true });
  if (text !== null) writeFileSync(file, text);
  const logged: string[] = [];
  return { defaults: readProcessDefaults(file, (m) => logged.push(m), passwd), logged };
}

test("process defaults are read from the file a built template holds", () => {
  assert.deepEqual(
    read(JSON.stringify({ env: { A: "1", B: "two words" }, working_dir: "/srv", user: "app" })),
    {
      defaults: { env: { A: "1", B: "two words" }, workingDir: "/srv", user: "app" },
      logged: [],
    },
  );
  assert.deepEqual(read(JSON.stringify({ user: "1000:1000" })).defaults, { user: "1000:1000" });
  assert.deepEqual(read(null), { defaults: {}, logged: [] }, "no file, no defaults, nothing logged");
});

test("a file of the wrong shape is reported and ignored, field by field", () => {
  const notJson = read("{nope");
  assert.deepEqual(notJson.defaults, {});
  assert.match(notJson.logged[0], /not JSON/);
  assert.deepEqual(read("[1]").defaults, {});
  const bad = read(
    JSON.stringify({ env: { A: 1 }, working_dir: "relative/dir", user: "nobody-here", extra: true }),
  );
  assert.deepEqual(bad.defaults, {});
  assert.equal(bad.logged.length, 3, bad.logged.join("\n"));
  assert.match(bad.logged.join("\n"), /env is not an object of strings/);
  assert.match(bad.logged.join("\n"), /working_dir is not an absolute path/);
  assert.match(bad.logged.join("\n"), /user nobody-here is not in/);
  assert.deepEqual(read(JSON.stringify({ user: "a b" })).defaults, {});
});
