import type { ApiKeyInfo } from "@svc/contract";
import { field, h, headRow, replace, showError, statusLine, when } from "../dom.ts";
import { type Session, setAdminToken } from "../session.ts";
import type { View } from "../view.ts";

/** A copyable snippet: a code block with a copy button. */
function snippet(label: string, text: string): HTMLElement {
  const code = h("pre", { tabindex: "0", "aria-label": label }, text);
  const button = h("button", { type: "button", "aria-label": `Copy ${label}` }, "Copy");
  button.addEventListener("click", async () => {
    await navigator.clipboard?.writeText(text).catch(() => {});
    button.textContent = "Copied";
    setTimeout(() => {
      button.textContent = "Copy";
    }, 1500);
  });
  return h("div", { class: "snippet" }, h("h3", {}, label), code, button);
}

/**
 * The project's keys. Key management is the server admin's (api-notes): the page asks for the admin token once
 * per tab, then lists, creates and deletes keys of the signed-in project only. The snippets need no token.
 */
export const keysView: View = (session, main) => {
  const status = statusLine();
  const body = h("tbody");
  const keyArea = h("div");
  const created = h("div", { role: "status", "aria-live": "polite" });
  const masked = `${session.key.slice(0, 16)}…`;
  const snippets = h(
    "section",
    { "aria-labelledby": "snip-title" },
    h("h2", { id: "snip-title" }, "Use this project"),
    snippet(
      "SDK (TypeScript)",
      `import { Client } from "@svc/sdk";\n\nconst client = new Client({ apiKey: process.env.SERVICE_API_KEY, baseUrl: "${session.baseUrl}" });\nconst sandbox = await client.sandboxes.create();\nawait sandbox.waitUntilRunning();\nconsole.log((await sandbox.run("echo", { args: ["hello"] })).stdout);`,
    ),
    snippet(
      "CLI",
      `export SVC_API_URL=${session.baseUrl}\nexport SERVICE_API_KEY=${masked}  # your key\nsvc sandboxes create\nsvc parse ./document.pdf`,
    ),
  );

  async function refresh(admin: NonNullable<ReturnType<Session["admin"]>>) {
    try {
      const keys = await admin.keys.list({ project: session.whoami.projectId });
      replace(
        body,
        keys.map((k: ApiKeyInfo) =>
          h(
            "tr",
            { "data-key": k.id },
            h("td", {}, k.name ?? "—"),
            h("td", {}, h("code", {}, `${k.prefix}…`)),
            h("td", {}, when(k.created_at)),
            h("td", {}, when(k.last_used_at) || "never"),
            h(
              "td",
              {},
              k.id === session.whoami.id
                ? h("small", { class: "hint" }, "this session's key")
                : h(
                    "button",
                    {
                      type: "button",
                      class: "danger",
                      "aria-label": `Delete key ${k.name ?? k.prefix}`,
                      onclick: async () => {
                        if (!confirm(`Delete key ${k.name ?? k.prefix}? It stops working at once.`)) return;
                        await admin.keys.delete(k.id).catch((e) => showError(status, e));
                        await refresh(admin);
                      },
                    },
                    "Delete",
                  ),
            ),
          ),
        ),
      );
      status.classList.remove("error");
      status.textContent = `${keys.length} keys`;
    } catch (error) {
      showError(status, error);
    }
  }

  function showKeys() {
    const admin = session.admin();
    if (!admin) {
      const token = h("input", { type: "password", name: "adminToken", autocomplete: "off" });
      const form = h(
        "form",
        { class: "row" },
        field(
          "Admin token",
          token,
          "Key management is an admin operation (the data directory's admin-token)",
        ),
        h("button", { type: "submit" }, "Unlock"),
      );
      form.addEventListener("submit", (event) => {
        event.preventDefault();
        setAdminToken(token.value.trim());
        showKeys();
      });
      replace(keyArea, form);
      return;
    }
    const name = h("input", { name: "keyName", placeholder: "ci" });
    const form = h(
      "form",
      { class: "row" },
      field("New key name", name),
      h("button", { type: "submit" }, "Create key"),
    );
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      try {
        const key = await admin.keys.create({
          project: session.whoami.projectId,
          ...(name.value.trim() ? { name: name.value.trim() } : {}),
        });
        replace(created, h("p", {}, "New key (shown once): "), snippet("New key", key.key));
        name.value = "";
        await refresh(admin);
      } catch (error) {
        showError(status, error);
      }
    });
    replace(
      keyArea,
      form,
      created,
      h("table", { "aria-label": "Keys" }, headRow(["Name", "Prefix", "Created", "Last used", ""]), body),
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            setAdminToken(null);
            showKeys();
          },
        },
        "Forget admin token",
      ),
    );
    refresh(admin);
  }
  replace(
    main,
    h("h1", {}, "Keys"),
    h("section", { "aria-label": "Keys of this project" }, keyArea, status),
    snippets,
  );
  showKeys();
  return undefined;
};
