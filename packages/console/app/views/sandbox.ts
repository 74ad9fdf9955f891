import { runtimeRoutes, type Sandbox as SandboxRecord } from "@svc/contract";
import type { Sandbox } from "@svc/sdk";
import { action, field, h, headRow, replace, showError, size, statusLine, when } from "../dom.ts";
import type { View } from "../view.ts";
import { listOf, statusBadge } from "./sandboxes.ts";
import { startTimelineView } from "./start-timeline.ts";

/** One sandbox: status and start timeline, actions, terminal, files, processes and logs, exposed ports. */
export const sandboxView: View = (session, main, id) => {
  if (!id) {
    location.hash = "#/sandboxes";
    return undefined;
  }
  const status = statusLine();
  const summary = h("dl", { class: "facts" });
  const timeline = h("ol", { class: "timeline", "aria-label": "States seen" });
  const phases = h("div", { class: "phases", "aria-live": "polite" });
  let phasesShown = false;
  const ports = h("ul", { class: "ports", "aria-label": "Exposed ports" });
  const portsInput = h("input", { name: "exposedPorts", placeholder: "e.g. 8080 3000" });
  const openInput = h("input", { type: "checkbox", name: "openPorts" });
  const portsForm = h(
    "form",
    { class: "row", "aria-label": "Exposed ports settings" },
    field("Ports", portsInput),
    h("label", { class: "check" }, openInput, " Open without a key"),
    h("button", { type: "submit" }, "Save ports"),
  );
  let portsEdited = false;
  portsInput.addEventListener("input", () => {
    portsEdited = true;
  });
  openInput.addEventListener("change", () => {
    portsEdited = true;
  });
  portsForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!handle) return;
    try {
      const record = await handle.update({
        exposed_ports: listOf(portsInput.value).map(Number),
        allow_unauthenticated_access: openInput.checked,
      });
      portsEdited = false;
      status.classList.remove("error");
      status.textContent = "Ports saved";
      show(record);
    } catch (error) {
      showError(status, error);
    }
  });
  const terminalHost = h(
    "div",
    { class: "terminal-host" },
    h("p", {}, "The terminal opens when the sandbox is running."),
  );
  const filesHost = h("div");
  const processesHost = h("div");
  const seen: { status: string; at: number }[] = [];
  let handle: Sandbox | null = null;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closeTerminal: (() => void) | undefined;
  let runtimeShown = false;
  let lastDrawn = "";

  /** Runs a lifecycle action and shows the record it answers with at once (the next poll would be later). */
  const lifecycle = (label: string, run: (sandbox: Sandbox) => Promise<SandboxRecord>) =>
    action(
      label,
      async () => {
        if (!handle) return;
        status.classList.remove("error");
        status.textContent = `${label}…`;
        show(await run(handle));
        if (status.textContent === `${label}…`) status.textContent = `${label}: done`;
      },
      status,
    );
  const suspendButton = lifecycle("Suspend", (sandbox) => sandbox.suspend());
  const resumeButton = lifecycle("Resume", (sandbox) => sandbox.resume());
  const snapshotButton = lifecycle("Snapshot", async (sandbox) => {
    const { snapshot_id } = await sandbox.snapshot();
    status.textContent = `Snapshot ${snapshot_id} started`;
    return sandbox.refresh();
  });
  const actions = h(
    "div",
    { class: "actions", role: "group", "aria-label": "Sandbox actions" },
    suspendButton,
    resumeButton,
    snapshotButton,
    action(
      "Delete",
      async () => {
        if (!handle || !confirm(`Delete sandbox ${handle.id}?`)) return;
        await handle.delete();
        location.hash = "#/sandboxes";
      },
      status,
      { class: "danger" },
    ),
  );

  /** The executor's own timing of the start, once the start has ended (running, or failed). */
  async function showPhases() {
    if (phasesShown || !handle) return;
    phasesShown = true;
    try {
      replace(phases, startTimelineView(await handle.startTimeline()));
    } catch (error) {
      phasesShown = false;
      showError(status, error);
    }
  }

  function show(record: SandboxRecord) {
    // Only what the sandbox's state allows (suspend and snapshot a running one, resume a suspended one).
    for (const [button, allowed] of [
      [suspendButton, record.status === "running"],
      [snapshotButton, record.status === "running"],
      [resumeButton, record.status === "suspended"],
    ] as const) {
      button.dataset.blocked = String(!allowed);
      button.disabled = !allowed;
    }
    if (record.status !== "pending") void showPhases();
    const last = seen.at(-1);
    const reason = record.status === "pending" ? (record.pending_reason ?? "") : "";
    if (!last || last.status !== `${record.status} ${reason}`) {
      seen.push({ status: `${record.status} ${reason}`, at: Date.now() });
      timeline.append(
        h(
          "li",
          {},
          statusBadge(record.status),
          reason ? ` ${reason.replaceAll("_", " ")}` : "",
          ` ${when(seen.at(-1)?.at)}`,
          seen.length > 1
            ? h("small", { class: "hint" }, ` +${((Date.now() - seen[0].at) / 1000).toFixed(1)} s`)
            : null,
        ),
      );
    }
    // Redrawn only when the record changed: a poll must not move the focus or repeat itself to a screen reader.
    const drawn = JSON.stringify(record);
    if (drawn === lastDrawn) return;
    lastDrawn = drawn;
    replace(
      summary,
      [
        ["Id", record.id],
        ["Name", record.name ?? "—"],
        ["Status", statusBadge(record.status)],
        ["Reason", record.pending_reason ?? record.termination_reason ?? record.error_details ?? "—"],
        ["Image", record.template_id ?? record.image ?? "default"],
        ["Resources", `${record.resources.cpus} CPU, ${record.resources.memory_mb} MB`],
        ["Created", when(record.created_at)],
        ["Internet", record.network?.allow_internet_access === false ? "no" : "yes"],
      ].flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]),
    );
    if (!portsEdited) {
      portsInput.value = (record.exposed_ports ?? []).join(" ");
      openInput.checked = record.allow_unauthenticated_access;
    }
    const ingress = record.ingress_endpoint ? new URL(record.ingress_endpoint) : null;
    replace(
      ports,
      (record.exposed_ports ?? []).length === 0 ? h("li", {}, "No exposed ports.") : null,
      (record.exposed_ports ?? []).map((port) =>
        h(
          "li",
          {},
          ingress
            ? h(
                "a",
                {
                  href: `${ingress.protocol}//${port}-${record.id}.${ingress.host}/`,
                  target: "_blank",
                  rel: "noopener",
                },
                `port ${port}`,
              )
            : `port ${port}`,
          record.allow_unauthenticated_access
            ? ""
            : h("small", { class: "hint" }, " (needs a key: open it without one to browse)"),
        ),
      ),
    );
    if (record.status === "running" && !runtimeShown) {
      runtimeShown = true;
      startRuntime(record);
    }
    if (record.status !== "running" && runtimeShown) {
      runtimeShown = false;
      closeTerminal?.();
      closeTerminal = undefined;
      replace(terminalHost, h("p", {}, `The sandbox is ${record.status}.`));
    }
  }

  function startRuntime(record: SandboxRecord) {
    import("./terminal.ts")
      .then(({ openTerminal }) => openTerminal(session, record, terminalHost))
      .then((close) => {
        if (stopped || !runtimeShown) close();
        else closeTerminal = close;
      })
      .catch((error) => showError(status, error));
    if (handle) {
      filesPanel(handle, filesHost);
      processesPanel(handle, processesHost);
    }
  }

  async function poll() {
    try {
      handle ??= await session.sandboxes.get(id as string);
      show(await handle.refresh());
    } catch (error) {
      showError(status, error);
    }
    if (!stopped) timer = setTimeout(poll, 1500);
  }

  replace(
    main,
    h("h1", {}, "Sandbox ", h("code", {}, id)),
    actions,
    status,
    h(
      "div",
      { class: "split" },
      h("section", { "aria-label": "Details" }, summary),
      h(
        "section",
        { "aria-labelledby": "tl" },
        h("h2", { id: "tl" }, "Start timeline"),
        timeline,
        phases,
        h("h2", {}, "Exposed ports"),
        ports,
        portsForm,
      ),
    ),
    h(
      "section",
      { "aria-labelledby": "term-title" },
      h("h2", { id: "term-title" }, "Terminal"),
      terminalHost,
    ),
    h(
      "div",
      { class: "split" },
      h("section", { "aria-labelledby": "files-title" }, h("h2", { id: "files-title" }, "Files"), filesHost),
      h(
        "section",
        { "aria-labelledby": "proc-title" },
        h("h2", { id: "proc-title" }, "Processes and logs"),
        processesHost,
      ),
    ),
  );
  poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    closeTerminal?.();
  };
};

/** Browse a directory of the sandbox, upload into it, download a file. */
function filesPanel(sandbox: Sandbox, host: HTMLElement) {
  const pathInput = h("input", { name: "path", value: "/tmp", spellcheck: "false" });
  const upload = h("input", { type: "file", name: "upload" });
  const status = statusLine();
  const list = h("ul", { class: "files", "aria-label": "Directory entries" });
  async function open(dir: string) {
    pathInput.value = dir;
    try {
      const entries = await sandbox.files.list(dir);
      const parent = dir.replace(/\/[^/]+\/?$/, "") || "/";
      replace(
        list,
        dir !== "/"
          ? h("li", {}, h("button", { type: "button", class: "link", onclick: () => open(parent) }, ".."))
          : null,
        entries
          .sort((a, b) => Number(b.is_dir) - Number(a.is_dir) || a.name.localeCompare(b.name))
          .map((e) => {
            const full = `${dir.replace(/\/$/, "")}/${e.name}`;
            return h(
              "li",
              {},
              e.is_dir
                ? h("button", { type: "button", class: "link", onclick: () => open(full) }, `${e.name}/`)
                : [
                    h(
                      "button",
                      {
                        type: "button",
                        class: "link",
                        onclick: () => download(full, e.name),
                        "aria-label": `Download ${e.name}`,
                      },
                      e.name,
                    ),
                    h("small", { class: "hint" }, ` ${size(e.size)}`),
                  ],
            );
          }),
      );
      status.textContent = `${entries.length} entries`;
      status.classList.remove("error");
    } catch (error) {
      showError(status, error);
    }
  }
  async function download(full: string, name: string) {
    try {
      const bytes = await sandbox.files.read(full);
      const url = URL.createObjectURL(new Blob([bytes as BlobPart]));
      h("a", { href: url, download: name }).click();
      setTimeout(() => URL.revokeObjectURL(url), 10_000);
    } catch (error) {
      showError(status, error);
    }
  }
  upload.addEventListener("change", async () => {
    const file = upload.files?.[0];
    if (!file) return;
    try {
      const target = `${pathInput.value.replace(/\/$/, "")}/${file.name}`;
      await sandbox.files.write(target, new Uint8Array(await file.arrayBuffer()));
      status.textContent = `Uploaded ${target}`;
      await open(pathInput.value);
    } catch (error) {
      showError(status, error);
    }
  });
  const form = h(
    "form",
    { class: "row" },
    field("Path", pathInput),
    h("button", { type: "submit" }, "Open"),
    field("Upload here", upload),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    open(pathInput.value || "/");
  });
  replace(host, form, list, status);
  open("/tmp");
}

/** The daemon's processes; one's output as its log. */
function processesPanel(sandbox: Sandbox, host: HTMLElement) {
  const body = h("tbody");
  const output = h("pre", { class: "log", role: "log", "aria-label": "Process output", tabindex: "0" });
  const status = statusLine();
  async function refresh() {
    try {
      const processes = await sandbox.processes.list();
      replace(
        body,
        processes.map((p) =>
          h(
            "tr",
            {},
            h("td", {}, String(p.pid)),
            h("td", {}, [p.command, ...p.args].join(" ")),
            h("td", {}, p.status, p.exit_code !== null ? ` (${p.exit_code})` : ""),
            h(
              "td",
              {},
              h(
                "button",
                {
                  type: "button",
                  onclick: async () => {
                    try {
                      const out = await sandbox.processes.output(p.pid);
                      output.textContent = out.lines.join("\n");
                    } catch (error) {
                      showError(status, error);
                    }
                  },
                },
                "Output",
              ),
            ),
          ),
        ),
      );
    } catch (error) {
      showError(status, error);
    }
  }
  const runInput = h("input", { name: "command", placeholder: "e.g. uname -a" });
  const form = h("form", { class: "row" }, field("Run", runInput), h("button", { type: "submit" }, "Start"));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await sandbox.processes.start({ command: "sh", args: ["-c", runInput.value] });
      runInput.value = "";
      await refresh();
    } catch (error) {
      showError(status, error);
    }
  });
  const logs = action(
    "Daemon logs",
    async () => {
      const answer = await sandbox.runtime().call(runtimeRoutes.getLogs, {});
      output.textContent = JSON.stringify(answer, null, 2);
    },
    status,
  );
  replace(
    host,
    form,
    h("table", { "aria-label": "Processes" }, headRow(["PID", "Command", "Status", ""]), body),
    h("div", { class: "actions" }, action("Refresh", refresh, status), logs),
    output,
    status,
  );
  refresh();
}
