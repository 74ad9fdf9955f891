import "./styles.css";
import { h, replace, showError } from "./dom.ts";
import { type Session, signIn, signOut, storedKey } from "./session.ts";
import type { View } from "./view.ts";
import { documentsView } from "./views/documents.ts";
import { keysView } from "./views/keys.ts";
import { resourcesView } from "./views/resources.ts";
import { sandboxView } from "./views/sandbox.ts";
import { sandboxesView } from "./views/sandboxes.ts";
import { signInView } from "./views/sign-in.ts";
import { viewerView } from "./views/viewer.ts";

/**
 * The console: a page of the control API's own origin, routed by the URL's hash (`#/sandboxes/<id>`), so the
 * server serves one page. Each view (view.ts) fills the main region and returns a cleanup.
 */

const ROUTES: { path: string; label: string; view: View; nav: boolean }[] = [
  { path: "sandboxes", label: "Sandboxes", view: sandboxesView, nav: true },
  { path: "sandbox", label: "Sandbox", view: sandboxView, nav: false },
  { path: "resources", label: "Pools, snapshots, file systems", view: resourcesView, nav: true },
  { path: "documents", label: "Documents", view: documentsView, nav: true },
  { path: "parse", label: "Parse result", view: viewerView, nav: false },
  { path: "keys", label: "Keys", view: keysView, nav: true },
];

const root = document.getElementById("app") as HTMLElement;
let session: Session | null = null;
let cleanup: (() => void) | undefined;

function layout(current: Session): HTMLElement {
  const nav = h(
    "nav",
    { "aria-label": "Sections" },
    h(
      "ul",
      {},
      ROUTES.filter((r) => r.nav).map((r) =>
        h("li", {}, h("a", { href: `#/${r.path}`, "data-route": r.path }, r.label)),
      ),
    ),
  );
  const project = current.project
    ? `${current.project.name} (${current.whoami.projectId})`
    : current.whoami.projectId;
  return h(
    "div",
    { class: "shell" },
    h("a", { href: "#main", class: "skip" }, "Skip to content"),
    h(
      "header",
      {},
      h("strong", { class: "brand" }, "svc console"),
      nav,
      h("span", { class: "project", "data-testid": "project" }, "Project ", h("code", {}, project)),
      h(
        "button",
        {
          type: "button",
          onclick: () => {
            signOut();
            session = null;
            location.hash = "";
            render();
          },
        },
        "Sign out",
      ),
    ),
    h("main", { id: "main", tabindex: "-1" }),
  );
}

function render(): void {
  cleanup?.();
  cleanup = undefined;
  if (!session) {
    replace(
      root,
      signInView(async (key) => {
        session = await signIn(key);
        if (!location.hash || location.hash === "#/") location.hash = "#/sandboxes";
        render();
      }),
    );
    return;
  }
  const [, path = "sandboxes", ...rest] = location.hash.replace(/^#/, "").split("/");
  const route = ROUTES.find((r) => r.path === path) ?? ROUTES[0];
  let main = root.querySelector("main");
  if (!main) {
    replace(root, layout(session));
    main = root.querySelector("main") as HTMLElement;
  }
  for (const link of root.querySelectorAll("nav a")) {
    const here =
      (link as HTMLElement).dataset.route === route.path ||
      (route.path === "sandbox" && (link as HTMLElement).dataset.route === "sandboxes");
    if (here) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  main.replaceChildren();
  document.title = `${route.label} · svc console`;
  try {
    cleanup = route.view(session, main, rest.length ? decodeURIComponent(rest.join("/")) : undefined);
  } catch (error) {
    showError(main.appendChild(h("p", { role: "alert" })), error);
  }
}

window.addEventListener("hashchange", () => {
  render();
  (root.querySelector("main") as HTMLElement | null)?.focus({ preventScroll: true });
});

async function start(): Promise<void> {
  const key = storedKey();
  if (key) {
    try {
      session = await signIn(key);
    } catch {
      signOut();
    }
  }
  render();
}
start();
