import assert from "node:assert/strict";
import { test } from "node:test";
import { entrypointCommand } from "./entrypoint.ts";

const image = { env: [], workingDir: null, user: null, entrypoint: ["/bin/sh", "-c"], cmd: ["echo hi"] };

test("the request's entrypoint replaces the image's ENTRYPOINT + CMD; an empty one runs nothing", () => {
  assert.deepEqual(entrypointCommand(null, image), ["/bin/sh", "-c", "echo hi"]);
  assert.deepEqual(entrypointCommand(null, { ...image, entrypoint: null }), ["echo hi"]);
  assert.deepEqual(entrypointCommand(null, { ...image, cmd: null }), ["/bin/sh", "-c"]);
  assert.deepEqual(entrypointCommand(["sleep", "60"], image), ["sleep", "60"]);
  assert.equal(entrypointCommand([], image), null);
  assert.equal(entrypointCommand(null, { ...image, entrypoint: null, cmd: null }), null);
  assert.equal(entrypointCommand(null, undefined), null);
  assert.deepEqual(entrypointCommand(["sleep", "60"], undefined), ["sleep", "60"]);
});
