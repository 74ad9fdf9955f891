import type { CreateSandboxRequest, Sandbox as SandboxRecord } from "@svc/contract";
import { changed, field, h, replace, showError, statusLine, when } from "../dom.ts";
import type { Session } from "../session.ts";
import type { View } from "../view.ts";

/** A comma- or space-separated list, empty entries dropped. */
export function listOf(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

export function statusBadge(status: string): HTMLElement {
  return h("span", { class: `badge ${status}` }, status);
}

/** The project's sandboxes with live status (polled), and the create form. */
export const sandboxesView: View = (session, main) => {
  const body = h("tbody");
  const status = statusLine();
  const table = h(
    "table",
    { "aria-label": "Sandboxes" },
    h(
      "thead",
      {},
      h(
        "tr",
        {},
        ["Name / id", "Status", "Image", "CPUs", "Memory", "Created"].map((t) =>
          h("th", { scope: "col" }, t),
        ),
      ),
    ),
    body,
  );
  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  async function refresh() {
    try {
      const { sandboxes } = await session.sandboxes.list({ limit: 200 });
      if (changed(body, sandboxes))
        replace(
          body,
          sandboxes.length === 0 ? h("tr", {}, h("td", { colspan: 6 }, "No sandboxes yet.")) : null,
          sandboxes.map((s: SandboxRecord) =>
            h(
              "tr",
              { "data-sandbox": s.id },
              h(
                "td",
                {},
                h("a", { href: `#/sandbox/${s.id}` }, s.name ?? s.id),
                s.name ? h("small", { class: "hint" }, ` ${s.id}`) : null,
              ),
              h(
                "td",
                {},
                statusBadge(s.status),
                s.pending_reason ? h("small", { class: "hint" }, ` ${s.pending_reason}`) : null,
              ),
              h("td", {}, s.template_id ?? s.image ?? "default"),
              h("td", {}, String(s.resources.cpus)),
              h("td", {}, `${s.resources.memory_mb} MB`),
              h("td", {}, when(s.created_at)),
            ),
          ),
        );
    } catch (error) {
      showError(status, error);
    }
    if (!stopped) timer = setTimeout(refresh, 2000);
  }
  replace(
    main,
    h("h1", {}, "Sandboxes"),
    h(
      "div",
      { class: "split" },
      h("section", { "aria-label": "List" }, h("div", { class: "scroll" }, table), status),
      createForm(session),
    ),
  );
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
};

function createForm(session: Session): HTMLElement {
  const name = h("input", { name: "name", placeholder: "optional" });
  const cpus = h("input", { type: "number", name: "cpus", min: "0.1", step: "0.1", value: "1" });
  const memory = h("input", { type: "number", name: "memory", min: "16", step: "16", value: "512" });
  const disk = h("input", { type: "number", name: "disk", min: "16", placeholder: "default" });
  const image = h("input", { name: "image", placeholder: "default" });
  const source = h("select", { name: "source" }, h("option", { value: "" }, "Image (above)"));
  const internet = h("input", { type: "checkbox", name: "internet", checked: true });
  const allowOut = h("input", { name: "allowOut", placeholder: "e.g. 10.0.0.0/8 example.com" });
  const denyOut = h("input", { name: "denyOut", placeholder: "e.g. 169.254.169.254" });
  const ports = h("input", { name: "ports", placeholder: "e.g. 8080 3000" });
  const open = h("input", { type: "checkbox", name: "public" });
  const timeout = h("input", { type: "number", name: "timeout", min: "0", value: "0" });
  const status = statusLine();
  // Templates and snapshots the sandbox may start from.
  Promise.all([
    session.templates.list().catch(() => []),
    session.snapshots.list().catch(() => []),
    session.pools.list().catch(() => []),
  ]).then(([templates, snapshots, pools]) => {
    for (const t of templates)
      source.append(h("option", { value: `template:${t.template_id}` }, `Template ${t.name}`));
    for (const s of snapshots)
      source.append(h("option", { value: `snapshot:${s.snapshot_id}` }, `Snapshot ${s.snapshot_id}`));
    for (const p of pools) source.append(h("option", { value: `pool:${p.pool_id}` }, `Pool ${p.pool_id}`));
  });
  const form = h(
    "form",
    { class: "card", "aria-labelledby": "create-title" },
    h("h2", { id: "create-title" }, "Create a sandbox"),
    field("Name", name),
    h("div", { class: "row" }, field("CPUs", cpus), field("Memory (MB)", memory), field("Disk (MB)", disk)),
    field("Image", image),
    field("Start from", source),
    h(
      "fieldset",
      {},
      h("legend", {}, "Network"),
      h("label", { class: "check" }, internet, " Internet access"),
      field("Allow out", allowOut),
      field("Deny out", denyOut),
    ),
    field("Exposed ports", ports),
    h("label", { class: "check" }, open, " Exposed ports open without a key (links work in a browser)"),
    field("Timeout (s, 0: server maximum)", timeout),
    h("button", { type: "submit" }, "Create"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const request: CreateSandboxRequest = {
      resources: {
        cpus: Number(cpus.value) || 1,
        memory_mb: Number(memory.value) || 512,
        ...(disk.value ? { disk_mb: Number(disk.value) } : {}),
      },
      network: {
        allow_internet_access: internet.checked,
        ...(allowOut.value.trim() ? { allow_out: listOf(allowOut.value) } : {}),
        ...(denyOut.value.trim() ? { deny_out: listOf(denyOut.value) } : {}),
      },
      timeout_secs: Number(timeout.value) || 0,
    };
    if (name.value.trim()) request.name = name.value.trim();
    if (image.value.trim()) request.image = image.value.trim();
    const ports_ = listOf(ports.value).map(Number);
    if (ports_.length) request.exposed_ports = ports_;
    if (open.checked) request.allow_unauthenticated_access = true;
    const [kind, id] = source.value.split(":");
    if (kind === "template") request.template_id = id;
    if (kind === "snapshot") request.snapshot_id = id;
    if (kind === "pool") request.pool_id = id;
    status.classList.remove("error");
    status.textContent = "Creating…";
    try {
      const sandbox = await session.sandboxes.create(request);
      status.textContent = `Created ${sandbox.id}`;
      location.hash = `#/sandbox/${sandbox.id}`;
    } catch (error) {
      showError(status, error);
    }
  });
  return form;
}
