import { field, h, showError, statusLine } from "../dom.ts";

/** Sign in with a project API key; the key stays in this tab's sessionStorage only. */
export function signInView(onKey: (key: string) => Promise<void>): HTMLElement {
  const input = h("input", {
    type: "password",
    name: "apiKey",
    autocomplete: "off",
    spellcheck: "false",
    placeholder: "svc_apiKey_…",
    required: true,
  });
  const status = statusLine();
  const form = h(
    "form",
    { class: "sign-in", "aria-labelledby": "sign-in-title" },
    h("h1", { id: "sign-in-title" }, "svc console"),
    h("p", {}, "Sign in with a project API key. It is kept for this tab only."),
    field("API key", input, "From `svc keys create` or the data directory's api-key file"),
    h("button", { type: "submit" }, "Sign in"),
    status,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    status.textContent = "Signing in…";
    status.classList.remove("error");
    try {
      await onKey(input.value.trim());
    } catch (error) {
      showError(status, error);
    }
  });
  queueMicrotask(() => input.focus());
  return h("div", { class: "center" }, form);
}
