import { DEFAULT_PROCESS_USER, SANDBOX_SSHD_PORT } from "@svc/contract";
import ssh2, {
  type Client,
  type Connection,
  type Server,
  type ServerChannel,
  type AuthContext as SshAuthContext,
} from "ssh2";
import type { AuthContext } from "../auth/context.ts";
import type { SandboxDialer } from "../hosts/relay.ts";
import type { Logger } from "../log.ts";
import { sandboxLink } from "../sandboxes/daemon-link.ts";
import type { SandboxRepository } from "../sandboxes/repository.ts";
import { forwardSession, forwardTcpip } from "./channel-forwarding.ts";
import { blobFingerprint, type GatewayKeys } from "./gateway-keys.ts";
import { enableSandboxSsh, openSandboxPort } from "./sandbox-link.ts";

export interface SshGatewayOptions {
  repo: SandboxRepository;
  authenticate: (key: string) => Promise<AuthContext | null>;
  secretOf: (sandboxId: string) => string;
  keys: GatewayKeys;
  /** The sandbox user sessions run as. Default {@link DEFAULT_PROCESS_USER}. */
  backendUser?: string;
  /** Port of the in-sandbox sshd. Default {@link SANDBOX_SSHD_PORT}. */
  sandboxSshdPort?: number;
  log?: Logger;
  /** Several hosts: reaches sandboxes that run on another host's executor, through its relay. */
  dialer?: SandboxDialer;
}

// ssh2 is CommonJS: its classes are read from the default export.
const { Client: SshClient, Server: SshServer } = ssh2;

const AUTH_METHODS = ["password", "keyboard-interactive"] as const;

/**
 * The SSH gateway: `ssh -p 2222 <sandbox-id-or-name>@<host>` with an API key as the password. The key decides the
 * project (another project's sandbox fails authentication like a wrong key). The first channel enables sshd in
 * the sandbox for the gateway's backend key, connects to it through the daemon's TCP tunnel (checking its host
 * key against the daemon's fingerprint), and every session (shell, exec, sftp) and `-L` forward is relayed.
 */
export interface SshGateway {
  server: Server;
  /** Stops listening and ends every connection (and its sandbox connection). */
  close(): Promise<void>;
}

export function createSshGateway(options: SshGatewayOptions): SshGateway {
  const backendUser = options.backendUser ?? DEFAULT_PROCESS_USER;
  const sshdPort = options.sandboxSshdPort ?? SANDBOX_SSHD_PORT;
  const log = options.log ?? (() => {});

  async function check(
    sandbox: string,
    key: string,
  ): Promise<{ projectId: string; sandboxId: string } | null> {
    const auth = await options.authenticate(key).catch(() => null);
    if (!auth) return null;
    const row = await options.repo.find(auth.projectId, sandbox).catch(() => null);
    return row ? { projectId: auth.projectId, sandboxId: row.id } : null;
  }

  async function connectBackend(projectId: string, sandboxId: string): Promise<Client> {
    const row = await options.repo.find(projectId, sandboxId);
    if (!row) throw new Error(`the sandbox ${sandboxId} no longer exists`);
    if (row.status !== "running" || !row.address)
      throw new Error(`the sandbox ${sandboxId} is ${row.status}`);
    const link = sandboxLink(row, options.secretOf(row.id), options.dialer);
    const status = await enableSandboxSsh(link, options.keys.backendPublicKey, backendUser);
    const sock = await openSandboxPort(link, sshdPort);
    const client = new SshClient();
    await new Promise<void>((resolve, reject) => {
      client.once("ready", () => resolve());
      client.once("error", (error) => {
        sock.destroy();
        reject(new Error(`the sandbox's sshd refused the gateway: ${error.message}`));
      });
      client.connect({
        sock,
        username: backendUser,
        privateKey: options.keys.backendKey,
        hostVerifier: (key: Buffer) => blobFingerprint(key) === status.host_key_fingerprint,
        readyTimeout: 20_000,
        keepaliveInterval: 15_000,
      });
    });
    client.on("error", (error) => log("ssh gateway backend error", { sandboxId, error: error.message }));
    return client;
  }

  const connections = new Set<Connection>();

  function onConnection(connection: Connection): void {
    connections.add(connection);
    let target: { projectId: string; sandboxId: string } | null = null;
    let backend: Promise<Client> | undefined;
    const ensureBackend = () => {
      if (!target) return Promise.reject(new Error("not authenticated"));
      const { projectId, sandboxId } = target;
      backend ??= connectBackend(projectId, sandboxId).then((client) => {
        client.on("close", () => connection.end());
        return client;
      });
      return backend;
    };
    const fail = (channel: ServerChannel, message: string) => {
      log("ssh gateway session failed", { sandboxId: target?.sandboxId, error: message });
      channel.stderr.write(`svc: ${message}\r\n`);
      channel.exit(255);
      channel.end();
    };

    connection.on("authentication", (ctx: SshAuthContext) => {
      const decide = (key: string | undefined) => {
        if (!key) {
          ctx.reject([...AUTH_METHODS]);
          return;
        }
        check(ctx.username, key).then((found) => {
          if (found) {
            target = found;
            ctx.accept();
          } else ctx.reject([...AUTH_METHODS]);
        });
      };
      if (ctx.method === "password") decide(ctx.password);
      else if (ctx.method === "keyboard-interactive") {
        ctx.prompt([{ prompt: "Password (API key): ", echo: false }], (answers) => decide(answers[0]));
      } else ctx.reject([...AUTH_METHODS]);
    });
    connection.on("ready", () => {
      connection.on("session", (accept) => forwardSession(accept(), ensureBackend, fail));
      connection.on("tcpip", (accept, reject, info) => forwardTcpip(accept, reject, info, ensureBackend));
      connection.on("request", (_accept, reject) => reject?.());
    });
    connection.on("error", () => {});
    connection.on("close", () => {
      connections.delete(connection);
      backend?.then(
        (client) => client.end(),
        () => {},
      );
    });
  }

  const server = new SshServer({ hostKeys: [options.keys.hostKey], ident: "svc-ssh-gateway" }, onConnection);
  return {
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const connection of connections) connection.end();
      }),
  };
}
