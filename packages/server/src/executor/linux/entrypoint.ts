/**
 * A sandbox's entrypoint: the command it runs once its daemon is up, as an ordinary background process of the
 * daemon (listed by the processes API with its output and, once it ends, its exit), so that a sandbox from an
 * image behaves as its container would. The sandbox keeps running whatever becomes of that process.
 */
import { FORWARDED_AUTH_HEADER, runtimeRoutes, signForwardedAuth } from "@svc/contract";
import type { OciImageConfig } from "./oci-images.ts";

/**
 * What a sandbox runs at start: the create request's `entrypoint` when it gives one (as `docker run
 * --entrypoint` does, it replaces the image's ENTRYPOINT and CMD; an empty one runs nothing), else the image's
 * ENTRYPOINT followed by its CMD; null when there is nothing to run.
 */
export function entrypointCommand(
  requested: string[] | null,
  image: OciImageConfig | undefined,
): string[] | null {
  const argv = requested ?? [...(image?.entrypoint ?? []), ...(image?.cmd ?? [])];
  return argv.length > 0 && argv[0] !== "" ? argv : null;
}

/**
 * Starts the entrypoint through the daemon's own processes API (signed like the proxy's requests), with no env,
 * working directory or user of its own: the daemon's defaults apply, which for an OCI image are its ENV,
 * WORKDIR and USER. Throws with the daemon's answer when the process cannot be started (e.g. no such file).
 */
export async function startEntrypoint(options: {
  address: string;
  sandboxId: string;
  secret: string;
  argv: string[];
  timeoutMs: number;
}): Promise<{ pid: number }> {
  const route = runtimeRoutes.startProcess;
  const [command, ...args] = options.argv;
  const response = await fetch(new URL(route.path, options.address), {
    method: route.method,
    headers: {
      "content-type": "application/json",
      [FORWARDED_AUTH_HEADER]: signForwardedAuth({
        secret: options.secret,
        sandboxId: options.sandboxId,
        method: route.method,
        pathAndQuery: route.path,
      }),
    },
    body: JSON.stringify({ command, args }),
    signal: AbortSignal.timeout(options.timeoutMs),
  });
  const text = await response.text();
  if (response.status !== route.status) {
    let message = text.trim();
    try {
      message = (JSON.parse(text) as { message?: string }).message ?? message;
    } catch {}
    throw new Error(`the entrypoint ${JSON.stringify(options.argv)} could not start: ${message}`);
  }
  return { pid: (JSON.parse(text) as { pid: number }).pid };
}
