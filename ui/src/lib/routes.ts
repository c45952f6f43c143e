// The app's client-side routes (path based, so every page has a link to share) and the rule
// for where sign-in may send the reader back to.

export type Route =
  | { name: "home" }
  | { name: "login" }
  | { name: "dashboard" }
  | { name: "definition"; id: string }
  | { name: "migration"; id: string }
  | { name: "batches" }
  | { name: "instances" }
  | { name: "instance"; id: string }
  | { name: "decision"; id: string }
  | { name: "audit" }
  | { name: "tasklist" }
  | { name: "task"; id: string }
  | { name: "start"; id: string }
  | { name: "notFound" };

const PATTERNS: [RegExp, (m: RegExpExecArray) => Route][] = [
  [/^\/$/, () => ({ name: "home" })],
  [/^\/login$/, () => ({ name: "login" })],
  [/^\/cockpit$/, () => ({ name: "dashboard" })],
  [/^\/cockpit\/definitions\/([^/]+)$/, (m) => ({ name: "definition", id: part(m[1]) })],
  [/^\/cockpit\/definitions\/([^/]+)\/migrate$/, (m) => ({ name: "migration", id: part(m[1]) })],
  [/^\/cockpit\/batches$/, () => ({ name: "batches" })],
  [/^\/cockpit\/instances$/, () => ({ name: "instances" })],
  [/^\/cockpit\/instances\/([^/]+)$/, (m) => ({ name: "instance", id: part(m[1]) })],
  [/^\/cockpit\/decisions\/([^/]+)$/, (m) => ({ name: "decision", id: part(m[1]) })],
  [/^\/cockpit\/audit$/, () => ({ name: "audit" })],
  [/^\/tasklist$/, () => ({ name: "tasklist" })],
  [/^\/tasklist\/tasks\/([^/]+)$/, (m) => ({ name: "task", id: part(m[1]) })],
  [/^\/tasklist\/start\/([^/]+)$/, (m) => ({ name: "start", id: part(m[1]) })],
];

function part(text: string | undefined): string {
  try {
    return decodeURIComponent(text ?? "");
  } catch {
    return text ?? "";
  }
}

export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, "") : pathname;
  for (const [pattern, make] of PATTERNS) {
    const m = pattern.exec(path);
    if (m) return make(m);
  }
  return { name: "notFound" };
}

/** Where sign-in returns to: a path of this site only (no `//host`, no scheme), else /cockpit. */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith("/") || next.startsWith("//") || next.startsWith("/\\")) {
    return "/cockpit";
  }
  if (/[\u0000-\u001f]/.test(next) || next.startsWith("/login")) return "/cockpit";
  return next;
}

export function loginHref(current: string): string {
  return `/login?next=${encodeURIComponent(current)}`;
}

export const paths = {
  definition: (id: string) => `/cockpit/definitions/${encodeURIComponent(id)}`,
  migration: (id: string, target?: string | null) =>
    `/cockpit/definitions/${encodeURIComponent(id)}/migrate` + (target ? `?target=${encodeURIComponent(target)}` : ""),
  batches: (batchId?: string | null) => "/cockpit/batches" + (batchId ? `?batch=${encodeURIComponent(batchId)}` : ""),
  instance: (id: string) => `/cockpit/instances/${encodeURIComponent(id)}`,
  decision: (id: string) => `/cockpit/decisions/${encodeURIComponent(id)}`,
  task: (id: string) => `/tasklist/tasks/${encodeURIComponent(id)}`,
  start: (id: string) => `/tasklist/start/${encodeURIComponent(id)}`,
};
