import assert from "node:assert/strict";
import { test } from "node:test";
import type { Sandbox } from "@svc/sdk";
import { waitForSandbox } from "./commands/sandbox-wait.ts";

test("a sandbox pending on its image's pull says so once, then answers the running record", async () => {
  const records = [
    { status: "pending", pending_reason: "scheduling", image: "ghcr.io/org/app:v1" },
    { status: "pending", pending_reason: "pulling_image", image: "ghcr.io/org/app:v1" },
    { status: "pending", pending_reason: "pulling_image", image: "ghcr.io/org/app:v1" },
    { status: "running", pending_reason: null, image: "ghcr.io/org/app:v1" },
  ];
  let at = 0;
  const sandbox = { id: "sbx-test", refresh: async () => records[Math.min(at++, records.length - 1)] };
  let written = "";
  const record = await waitForSandbox(
    sandbox as unknown as Sandbox,
    { write: (text: string) => (written += text) } as never,
    { intervalMs: 1 },
  );
  assert.equal(record.status, "running");
  assert.match(
    written,
    /^svc: pulling the image ghcr\.io\/org\/app:v1 \(once per host\)…\nsvc: image ready after \d+ s\n$/,
  );
});
