/**
 * What the template build tests do with what they built: start a sandbox of the template, wait while it is
 * pending, run a script in it through its daemon, and delete it.
 */
import assert from "node:assert/strict";
import { readSseStream } from "@svc/contract";
import { controlApi } from "../api.testing.ts";

type Server = { url: string; apiKey: string };

/** The sandbox's record once it is no longer pending (or still pending after `timeoutMs`). */
// biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape.
export async function settledRecord(server: Server, id: string, timeoutMs: number): Promise<any> {
  const call = controlApi(server);
  const deadline = Date.now() + timeoutMs;
  let sandbox = (await call("GET", `/sandboxes/${id}`)).json;
  while (sandbox.status === "pending" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 100));
    sandbox = (await call("GET", `/sandboxes/${id}`)).json;
  }
  return sandbox;
}

/**
 * Runs `sh -c script` in a new sandbox of the template, as `user` (the template's default user when null), and
 * answers its output lines, each ending in `\n`; the sandbox is deleted after.
 */
export async function runInTemplate(
  server: Server,
  template: string,
  script: string,
  options: { user: string | null; timeoutMs: number },
): Promise<string> {
  const call = controlApi(server);
  const created = await call("POST", "/sandboxes", {
    template_id: template,
    resources: { cpus: 0.5, memory_mb: 512 },
  });
  assert.equal(created.status, 200, created.text);
  const id = created.json.sandbox_id;
  try {
    const sandbox = await settledRecord(server, id, options.timeoutMs);
    assert.equal(sandbox.status, "running", JSON.stringify(sandbox));
    const run = await fetch(`${sandbox.sandbox_url}/api/v1/processes/run`, {
      method: "POST",
      headers: { authorization: `Bearer ${server.apiKey}`, "content-type": "application/json" },
      body: JSON.stringify({
        command: "sh",
        args: ["-c", script],
        ...(options.user ? { user: options.user } : {}),
      }),
    });
    let out = "";
    for await (const message of readSseStream(run.body as unknown as AsyncIterable<Uint8Array>)) {
      const event = JSON.parse(message.data);
      if (typeof event.line === "string") out += `${event.line}\n`;
    }
    return out;
  } finally {
    await call("DELETE", `/sandboxes/${id}`);
  }
}
