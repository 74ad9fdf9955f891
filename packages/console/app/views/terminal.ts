import type { Sandbox as SandboxRecord } from "@svc/contract";
import {
  decodePtyServerFrame,
  encodePtyInput,
  encodePtyReady,
  encodePtyResize,
  parsePtyExitCloseReason,
  runtimeRoutes,
} from "@svc/contract";
import { runtimeSubprotocols } from "@svc/contract/browser-access";
import { FitAddon } from "@xterm/addon-fit";
import { Terminal } from "@xterm/xterm";
import "@xterm/xterm/css/xterm.css";
import { h, replace } from "../dom.ts";
import type { Session } from "../session.ts";

/**
 * A terminal in a sandbox: xterm.js over the daemon's PTY WebSocket, through the proxy. The page cannot set
 * headers on a WebSocket, so the key goes as a `bearer.<key>` subprotocol and the session token in the query.
 * The PTY session outlives the socket: a dropped connection reconnects and gets the recent output replayed.
 * Loaded on demand (xterm.js is a chunk of its own).
 */
export async function openTerminal(
  session: Session,
  record: SandboxRecord,
  host: HTMLElement,
): Promise<() => void> {
  const runtime = session.runtime(record);
  const term = new Terminal({
    convertEol: false,
    cursorBlink: true,
    screenReaderMode: true,
    fontSize: 14,
    scrollback: 5000,
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  const screen = h("div", { class: "terminal", "data-testid": "terminal" });
  const state = h("span", { class: "term-state", role: "status", "aria-live": "polite" }, "connecting…");
  const reconnectButton = h("button", { type: "button", hidden: true }, "Reconnect");
  replace(host, h("div", { class: "term-bar" }, state, reconnectButton), screen);
  term.open(screen);
  fit.fit();
  const created = await runtime.call(runtimeRoutes.createPtySession, {
    body: {
      command: "bash",
      args: ["-l"],
      rows: term.rows,
      cols: term.cols,
      env: { TERM: "xterm-256color" },
    },
  });
  let ws: WebSocket | null = null;
  let closed = false;
  let exited = false;
  let retries = 0;
  const send = (frame: Uint8Array) => {
    if (ws?.readyState === WebSocket.OPEN) ws.send(frame as Uint8Array<ArrayBuffer>);
  };
  const input = term.onData((data) => send(encodePtyInput(data)));
  const binary = term.onBinary((data) => send(encodePtyInput(Uint8Array.from(data, (c) => c.charCodeAt(0)))));
  const resized = term.onResize(({ cols, rows }) => send(encodePtyResize(cols, rows)));

  function connect() {
    const url = runtime
      .url(runtimeRoutes.connectPty, {
        params: { session_id: created.session_id },
        query: { token: created.token },
      })
      .replace(/^http/, "ws");
    const socket = new WebSocket(url, runtimeSubprotocols(session.key));
    socket.binaryType = "arraybuffer";
    ws = socket;
    state.textContent = "connecting…";
    reconnectButton.hidden = true;
    socket.onopen = () => {
      retries = 0;
      state.textContent = "connected";
      send(encodePtyReady());
      send(encodePtyResize(term.cols, term.rows));
      term.focus();
    };
    socket.onmessage = (event) => {
      const decoded = decodePtyServerFrame(new Uint8Array(event.data as ArrayBuffer));
      if (!decoded.ok) return;
      if (decoded.frame.type === "output") term.write(decoded.frame.data);
      else {
        exited = true;
        state.textContent = `exited with ${decoded.frame.code}`;
      }
    };
    socket.onclose = (event) => {
      if (ws !== socket || closed) return;
      const code = parsePtyExitCloseReason(event.reason);
      if (exited || code !== undefined) {
        state.textContent = `exited with ${code ?? "?"}`;
        return;
      }
      state.textContent = "disconnected";
      reconnectButton.hidden = false;
      // A dropped connection (server restart, network) retries a few times, then waits for the button.
      if (retries < 5) setTimeout(() => !closed && ws === socket && connect(), 500 * 2 ** retries++);
    };
  }
  reconnectButton.addEventListener("click", () => {
    retries = 0;
    connect();
  });
  connect();
  const observer = new ResizeObserver(() => fit.fit());
  observer.observe(screen);
  return () => {
    closed = true;
    observer.disconnect();
    input.dispose();
    binary.dispose();
    resized.dispose();
    ws?.close(1000);
    // Leaving the page ends the shell (its output would have no reader).
    runtime
      .call(runtimeRoutes.deletePtySession, { params: { session_id: created.session_id } })
      .catch(() => {});
    term.dispose();
  };
}
