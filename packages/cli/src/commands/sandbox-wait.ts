import type { Sandbox as SandboxRecord } from "@svc/contract";
import type { Sandbox } from "@svc/sdk";

/** Where the wait's progress lines go (stderr in the CLI). */
export interface WaitOutput {
  write(text: string): unknown;
}

export interface WaitOptions {
  /** How long to wait while the server says nothing more than `scheduling`; default 120 s. */
  timeoutMs?: number;
  /** How long to wait while the server builds the built-in image; default 15 minutes. */
  imageBuildTimeoutMs?: number;
  /** Seconds between two "still building" lines; default 15. */
  reminderSecs?: number;
  intervalMs?: number;
}

/**
 * Waits until a new sandbox runs, saying why when that takes long: the first sandbox of a machine waits for the
 * built-in image (pending_reason `building_image`, a minute or two), a new OCI image waits for its pull
 * (`pulling_image`), and a line says so at once and again every
 * `reminderSecs`, on stderr so that stdout keeps only the record. Throws when the sandbox ends before running.
 */
export async function waitForSandbox(
  sandbox: Sandbox,
  output: WaitOutput,
  options: WaitOptions = {},
): Promise<SandboxRecord> {
  const started = Date.now();
  const reminderMs = (options.reminderSecs ?? 15) * 1000;
  let building = false;
  let lastLine = 0;
  for (;;) {
    const record = await sandbox.refresh();
    if (record.status !== "pending") {
      if (building) output.write(`svc: image ready after ${Math.round((Date.now() - started) / 1000)} s\n`);
      // running, or ended: the SDK's wait gives the same error text for an end as before.
      return record.status === "running" ? record : sandbox.waitUntilRunning({ timeoutMs: 0 });
    }
    const elapsed = Date.now() - started;
    const pulling = record.pending_reason === "pulling_image";
    if (record.pending_reason === "building_image" || pulling) {
      if (!building) {
        building = true;
        lastLine = Date.now();
        output.write(
          pulling
            ? `svc: pulling the image ${record.image ?? ""} (once per host)…\n`
            : "svc: building the built-in sandbox image (once per machine; a minute or two)…\n",
        );
      } else if (Date.now() - lastLine >= reminderMs) {
        lastLine = Date.now();
        output.write(
          `svc: still ${pulling ? "pulling" : "building"} the sandbox image (${Math.round(elapsed / 1000)} s)…\n`,
        );
      }
    }
    const limit = building ? (options.imageBuildTimeoutMs ?? 900_000) : (options.timeoutMs ?? 120_000);
    if (elapsed > limit) {
      throw new Error(
        `sandbox ${sandbox.id} is still pending (${record.pending_reason ?? ""}) after ${Math.round(elapsed / 1000)} s`,
      );
    }
    await new Promise((r) => setTimeout(r, options.intervalMs ?? 250));
  }
}
