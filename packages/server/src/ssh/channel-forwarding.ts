import type {
  AcceptConnection,
  Client,
  ClientChannel,
  PseudoTtyInfo,
  PseudoTtyOptions,
  RejectConnection,
  ServerChannel,
  Session,
  TcpipRequestInfo,
} from "ssh2";

/** What a session channel becomes once its client says: a shell, a command, or a subsystem (sftp). */
type Start = { kind: "shell" } | { kind: "exec"; command: string } | { kind: "subsystem"; name: string };

/**
 * Relays one SSH channel pair: data both ways (stderr too), EOF, exit status or signal, then close.
 * The client's EOF is the backend's EOF; the backend's close ends the client's channel.
 */
function relay(client: ServerChannel, backend: ClientChannel): void {
  backend.pipe(client, { end: false });
  backend.stderr.pipe(client.stderr, { end: false });
  client.pipe(backend);
  backend.on("exit", (code: number | null, signal?: string, coreDumped?: boolean, description?: string) => {
    if (code !== null && code !== undefined) client.exit(code);
    else if (signal) client.exit(signal, coreDumped ?? false, description ?? "");
  });
  backend.on("close", () => client.end());
  client.on("close", () => backend.close());
  client.on("error", () => backend.close());
  backend.on("error", () => client.close());
}

/**
 * Forwards one session channel of a gateway client to the sandbox's sshd: pty-req, env and window-change are
 * kept until shell, exec or subsystem opens the backend channel with them; later window changes and signals
 * pass through. `backend` is called once, when the channel starts.
 */
export function forwardSession(
  session: Session,
  backend: () => Promise<Client>,
  fail: (channel: ServerChannel, message: string) => void,
): void {
  let pty: PseudoTtyOptions | undefined;
  const env: Record<string, string> = {};
  let started: ClientChannel | undefined;

  session.on("pty", (accept, _reject, info: PseudoTtyInfo) => {
    pty = { rows: info.rows, cols: info.cols, width: info.width, height: info.height, term: info.term };
    if (info.modes) pty.modes = info.modes;
    accept?.();
  });
  session.on("env", (accept, _reject, info: { key: string; val: string }) => {
    env[info.key] = info.val;
    accept?.();
  });
  session.on(
    "window-change",
    (accept, _reject, info: { rows: number; cols: number; height: number; width: number }) => {
      if (started) started.setWindow(info.rows, info.cols, info.height, info.width);
      else if (pty)
        Object.assign(pty, { rows: info.rows, cols: info.cols, height: info.height, width: info.width });
      accept?.();
    },
  );
  session.on("signal", (accept, _reject, info: { name: string }) => {
    started?.signal(info.name);
    accept?.();
  });
  for (const refused of ["auth-agent", "x11"] as const) {
    session.on(refused, (_accept: unknown, reject?: RejectConnection) => reject?.());
  }

  const start = (accept: AcceptConnection<ServerChannel>, what: Start) => {
    const channel = accept();
    const open = (
      client: Client,
      done: (error: Error | undefined, backendChannel: ClientChannel) => void,
    ) => {
      if (what.kind === "exec") client.exec(what.command, { env, ...(pty ? { pty } : {}) }, done);
      else if (what.kind === "shell") client.shell(pty ?? false, { env }, done);
      else client.subsys(what.name, done);
    };
    backend().then(
      (client) =>
        open(client, (error, backendChannel) => {
          if (error) {
            fail(channel, `the sandbox refused the ${what.kind}: ${error.message}`);
            return;
          }
          started = backendChannel;
          relay(channel, backendChannel);
        }),
      (error: Error) => fail(channel, error.message),
    );
  };
  session.on("shell", (accept) => start(accept, { kind: "shell" }));
  session.on("exec", (accept, _reject, info) => start(accept, { kind: "exec", command: info.command }));
  session.on("subsystem", (accept, _reject, info) => start(accept, { kind: "subsystem", name: info.name }));
}

/** Forwards a `direct-tcpip` channel (`ssh -L`): the sandbox's sshd connects to the destination inside. */
export function forwardTcpip(
  accept: AcceptConnection<ServerChannel>,
  reject: RejectConnection,
  info: TcpipRequestInfo,
  backend: () => Promise<Client>,
): void {
  backend().then(
    (client) =>
      client.forwardOut(info.srcIP, info.srcPort, info.destIP, info.destPort, (error, backendChannel) => {
        if (error) {
          reject();
          return;
        }
        const channel = accept();
        backendChannel.pipe(channel);
        channel.pipe(backendChannel);
        backendChannel.on("close", () => channel.close());
        channel.on("close", () => backendChannel.close());
        backendChannel.on("error", () => channel.close());
        channel.on("error", () => backendChannel.close());
      }),
    () => reject(),
  );
}
