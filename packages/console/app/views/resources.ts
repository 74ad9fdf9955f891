import type { FileSystemEntry } from "@svc/sdk";
import { action, h, headRow, replace, showError, size, statusLine, when } from "../dom.ts";
import type { Session } from "../session.ts";
import type { View } from "../view.ts";

/** Pools, snapshots, templates and named file systems (each file system's tree on demand). */
export const resourcesView: View = (session, main) => {
  const status = statusLine();
  const pools = h("tbody");
  const snapshots = h("tbody");
  const templates = h("tbody");
  const fileSystems = h("ul", { class: "filesystems" });
  const tree = h("div", { class: "tree-host" });
  const table = (label: string, heads: string[], body: HTMLElement) =>
    h("table", { "aria-label": label }, headRow(heads), body);

  async function refresh() {
    try {
      const [p, s, t, f] = await Promise.all([
        session.pools.list(),
        session.snapshots.list(),
        session.templates.list(),
        session.fileSystems.list(),
      ]);
      replace(
        pools,
        p.map((pool) =>
          h(
            "tr",
            {},
            h("td", {}, pool.pool_id),
            h("td", {}, pool.image ?? "default"),
            h("td", {}, `${pool.resources.cpus} CPU, ${pool.resources.memory_mb} MB`),
            h(
              "td",
              {},
              action(
                "Delete",
                async () => {
                  await session.pools.delete(pool.pool_id);
                  await refresh();
                },
                status,
                { class: "danger" },
              ),
            ),
          ),
        ),
      );
      replace(
        snapshots,
        s.map((snap) =>
          h(
            "tr",
            {},
            h("td", {}, snap.snapshot_id),
            h("td", {}, snap.sandbox_id),
            h("td", {}, snap.status),
            h("td", {}, size(snap.size_bytes ?? 0)),
            h("td", {}, when(snap.created_at)),
            h(
              "td",
              {},
              action(
                "Delete",
                async () => {
                  await session.snapshots.delete(snap.snapshot_id);
                  await refresh();
                },
                status,
                { class: "danger" },
              ),
            ),
          ),
        ),
      );
      replace(
        templates,
        t.map((tpl) =>
          h(
            "tr",
            {},
            h("td", {}, tpl.name),
            h("td", {}, tpl.template_id),
            h("td", {}, tpl.source),
            h("td", {}, tpl.base_image),
          ),
        ),
      );
      replace(
        fileSystems,
        f.length === 0 ? h("li", {}, "No file systems.") : null,
        f.map((fs) =>
          h(
            "li",
            {},
            h(
              "button",
              { type: "button", class: "link", onclick: () => showTree(session, fs.name, tree) },
              fs.name,
            ),
            fs.description ? ` ${fs.description}` : "",
          ),
        ),
      );
    } catch (error) {
      showError(status, error);
    }
  }
  replace(
    main,
    h("h1", {}, "Pools, snapshots and file systems"),
    status,
    h(
      "section",
      { "aria-labelledby": "pools-t" },
      h("h2", { id: "pools-t" }, "Warm pools"),
      table("Pools", ["Pool", "Image", "Resources", ""], pools),
    ),
    h(
      "section",
      { "aria-labelledby": "snaps-t" },
      h("h2", { id: "snaps-t" }, "Snapshots"),
      table("Snapshots", ["Snapshot", "Sandbox", "Status", "Size", "Created", ""], snapshots),
    ),
    h(
      "section",
      { "aria-labelledby": "tpl-t" },
      h("h2", { id: "tpl-t" }, "Templates"),
      table("Templates", ["Name", "Id", "Source", "Base image"], templates),
    ),
    h(
      "section",
      { "aria-labelledby": "fs-t" },
      h("h2", { id: "fs-t" }, "File systems"),
      h("div", { class: "split" }, fileSystems, tree),
    ),
  );
  refresh();
  return undefined;
};

/** A file system's tree as nested lists (a tree for screen readers). */
async function showTree(session: Session, name: string, host: HTMLElement) {
  const status = statusLine();
  replace(host, h("p", {}, `Loading ${name}…`));
  try {
    const entries = await session.fileSystems.tree(name);
    replace(host, h("h3", {}, name), renderTree(entries), status);
  } catch (error) {
    replace(host, status);
    showError(status, error);
  }
}

interface Node {
  name: string;
  entry?: FileSystemEntry;
  children: Map<string, Node>;
}

export function renderTree(entries: FileSystemEntry[]): HTMLElement {
  const root: Node = { name: "/", children: new Map() };
  for (const entry of entries) {
    let node = root;
    for (const part of entry.path.split("/").filter(Boolean)) {
      let next = node.children.get(part);
      if (!next) {
        next = { name: part, children: new Map() };
        node.children.set(part, next);
      }
      node = next;
    }
    node.entry = entry;
  }
  const list = (node: Node): HTMLElement =>
    h(
      "ul",
      {
        role: node === root ? "tree" : "group",
        "aria-label": node === root ? "File system tree" : undefined,
      },
      [...node.children.values()]
        .sort(
          (a, b) => Number(b.children.size > 0) - Number(a.children.size > 0) || a.name.localeCompare(b.name),
        )
        .map((child) =>
          h(
            "li",
            {
              role: "treeitem",
              "aria-expanded": child.entry?.is_dir || child.children.size ? "true" : undefined,
            },
            child.entry?.is_dir || child.children.size ? `${child.name}/` : `${child.name} `,
            child.entry && !child.entry.is_dir ? h("small", { class: "hint" }, size(child.entry.size)) : null,
            child.children.size ? list(child) : null,
          ),
        ),
    );
  return h("div", { class: "tree" }, list(root));
}
