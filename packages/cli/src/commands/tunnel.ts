import type { AddressInfo } from "node:net";
import { Client } from "@svc/sdk";
import { parse, UsageError } from "../usage.ts";

/**
 * `svc tunnel <sandbox> <port> [--local-port N]`: listens on 127.0.0.1:<local-port> (default: the same port
 * number) and carries each accepted connection to 127.0.0.1:<port> inside the sandbox over its own tunnel
 * WebSocket. Runs until interrupted.
 */
export async function tunnelCommand(args: string[]): Promise<number | undefined> {
  const { values, positionals } = parse(args, { "local-port": { type: "string" } }, 2);
  const [target, portText] = positionals;
  const port = Number(portText);
  const localPort = values["local-port"] === undefined ? port : Number(values["local-port"]);
  if (!target || !Number.isInteger(port) || port < 1 || port > 65535)
    throw new UsageError("usage: svc tunnel <sandbox> <port> [--local-port N]");
  if (!Number.isInteger(localPort) || localPort < 0 || localPort > 65535)
    throw new UsageError("--local-port must be an integer from 0 to 65535");
  const sandbox = await new Client().sandboxes.get(target);
  const tunnel = sandbox.tunnel(port);
  // Fails early, with the server's error, when nothing listens on the port.
  (await tunnel.connect()).destroy();
  const server = await tunnel.listen(localPort);
  const address = server.address() as AddressInfo;
  process.stderr.write(`svc: 127.0.0.1:${address.port} → ${sandbox.id}:${port} (Ctrl-C to stop)\n`);
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once("SIGINT", stop);
    process.once("SIGTERM", stop);
  });
  return 0;
}
