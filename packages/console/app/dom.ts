/** A tiny element builder: the console has no framework, only the DOM. */

type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown>;

/**
 * An element with attributes, properties, listeners and children: `on<event>` props are listeners, `class`,
 * `role`, `aria-*`, `data-*`, `for` and `type` are attributes, everything else is set as a property.
 */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  props: Props = {},
  ...children: (Child | Child[])[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2).toLowerCase(), value as EventListener);
    } else if (
      /^(class|role|for|type|title|href|target|rel|aria-.*|data-.*|tabindex|name|id|min|max|step|accept|placeholder|autocomplete|spellcheck|rows|download|draggable)$/.test(
        name,
      )
    ) {
      element.setAttribute(name, value === true ? "" : String(value));
    } else {
      (element as unknown as Record<string, unknown>)[name] = value;
    }
  }
  append(element, children);
  return element;
}

/** Appends children, flattening arrays and skipping empty ones. */
export function append(parent: Node, children: (Child | Child[])[]): void {
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

const drawn = new WeakMap<Element, string>();

/**
 * Whether `data` differs from what `element` was last drawn from (and records it): a polled list is redrawn only
 * when it changed, so a poll never takes the keyboard focus away or repeats the list to a screen reader.
 */
export function changed(element: Element, data: unknown): boolean {
  const text = JSON.stringify(data);
  if (drawn.get(element) === text) return false;
  drawn.set(element, text);
  return true;
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: (Child | Child[])[]): void {
  parent.replaceChildren();
  append(parent, children);
}

/** A labelled form field: the label names the control for screen readers. */
export function field(label: string, control: HTMLElement, hint?: string): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h(
    "div",
    { class: "field" },
    h("label", { for: id }, label),
    control,
    hint ? h("small", { class: "hint" }, hint) : null,
  );
}

/** A table's head row; an empty name is a column of buttons, named "Actions" for screen readers only. */
export function headRow(names: string[]): HTMLElement {
  return h(
    "thead",
    {},
    h(
      "tr",
      {},
      names.map((name) =>
        h("th", { scope: "col" }, name || h("span", { class: "visually-hidden" }, "Actions")),
      ),
    ),
  );
}

/** A status line that screen readers announce when it changes. */
export function statusLine(): HTMLElement {
  return h("p", { class: "status", role: "status", "aria-live": "polite" });
}

/** Reports an error in a status line (or alerts), with the service's code when it has one. */
export function showError(where: HTMLElement | null, error: unknown): void {
  const code = (error as { code?: string }).code;
  const message = `${code ? `${code}: ` : ""}${(error as Error).message ?? String(error)}`;
  if (where) {
    where.textContent = message;
    where.classList.add("error");
  } else alert(message);
}

/** Bytes as KB/MB for tables. */
export function size(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

/** A time as local date and time. */
export function when(time: number | string | null | undefined): string {
  if (time === null || time === undefined) return "";
  return new Date(time).toLocaleString();
}

/** A button that runs an async action, disabled while it runs; errors go to `status`. */
export function action(
  label: string,
  run: () => Promise<unknown>,
  status: HTMLElement | null,
  props: Props = {},
) {
  const button = h("button", { type: "button", ...props }, label);
  button.addEventListener("click", async () => {
    button.disabled = true;
    try {
      await run();
    } catch (error) {
      showError(status, error);
    } finally {
      // Enabled again, unless the state of what it acts on disallows it (`data-blocked`).
      button.disabled = button.dataset.blocked === "true";
    }
  });
  return button;
}
