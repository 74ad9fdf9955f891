import assert from "node:assert/strict";
import { test } from "node:test";
import ssh2 from "ssh2";
import type { SettingsRepository } from "../store/settings.ts";
import { loadGatewayKeys } from "./gateway-keys.ts";

/** A store that keeps nothing: every call generates fresh keys. */
const fresh: SettingsRepository = {
  get: async () => null,
  set: async () => {},
  getOrSet: async (_key, value) => value,
};

test("every generated gateway key reads back (ssh2 writes about one in 750 that it cannot parse)", async () => {
  // 1,500 calls make 3,000 keys: without the read-back check, a malformed one shows up almost surely.
  for (let i = 0; i < 1500; i++) {
    const keys = await loadGatewayKeys(fresh);
    for (const key of [keys.hostKey, keys.backendKey]) {
      assert.ok(!(ssh2.utils.parseKey(key) instanceof Error), `generated key ${i} does not parse`);
    }
    assert.match(keys.backendPublicKey, /^ssh-ed25519 \S+ svc-ssh-gateway$/);
  }
});
