import type { AddressInfo } from "node:net";
import { Client } from "@svc/sdk";
import { usageOf } from "../help.ts";
import { numberOption, parse, UsageError } from "../usage.ts";

/**
 * `svc tunnel <sandbox> <port> [--local-port N]`: listens on 127.0.0.1:<local-port> (default: the same port
 * number) and carries each accepted connection to 127.0.0.1:<port> inside the sandbox over its own tunnel
 * WebSocket. Runs until interrupted.
 */
export async function tunnelCommand(args: string[]): Promise<number | undefined> {
  const { values, positionals } = parse(args, { "local-port": { type: "string" } }, 2);
  const [target, portText] = positionals;
  if (!target || portText === undefined) throw new UsageError(usageOf("tunnel"));
  const port = numberOption(portText, "<port>", { integer: true, min: 1, max: 65535 }) as number;
  const localPort =
    numberOption(values["local-port"], "local-port", { integer: true, min: 0, max: 65535 }) ?? port;
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
