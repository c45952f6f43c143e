// Where a camunda:formKey points: Camunda's Tasklist resolves `embedded:app:` and `app:` against
// the process application's context path; anything else is shown as it is.

/** Camunda's key for a form it renders from camunda:formData itself: not a form of its own. */
export function isGeneratedFormKey(key: string | null | undefined): boolean {
  return !!key && key.startsWith("embedded:engine:");
}

export function formKeyHref(key: string | null | undefined, contextPath: string | null | undefined): string | null {
  if (!key) return null;
  const rest = key.replace(/^embedded:/, "");
  if (rest.startsWith("app:")) {
    const path = rest.slice("app:".length).replace(/^\/+/, "");
    const base = (contextPath ?? "").replace(/\/+$/, "");
    return `${base}/${path}`;
  }
  if (rest.startsWith("/")) return rest;
  if (/^https?:\/\//.test(rest)) return rest;
  return null;
}
