// The one way the app talks to the server: same-origin fetch with the session cookie, the CSRF
// token on every change, JSON in and out, Camunda's error bodies turned into ApiError.

export class ApiError extends Error {
  readonly status: number;
  readonly type: string;
  /** the whole error body, for the answers that carry more than a message (a migration's
   * validation report) */
  readonly body: unknown;

  constructor(status: number, type: string, message: string, body: unknown = null) {
    super(message);
    this.status = status;
    this.type = type;
    this.body = body;
  }

  /** The endpoint is not there (yet): a server without this extension. */
  get notAvailable(): boolean {
    return (this.status === 404 && this.type === "NotFound") || this.status === 405 || this.status === 501;
  }
}

let csrfToken: string | null = null;
let onUnauthenticated: (() => void) | null = null;

export function setCsrfToken(token: string | null): void {
  csrfToken = token;
}

/** Called when the server answers 401 to a signed-in page: the session ended. */
export function setUnauthenticatedHandler(handler: (() => void) | null): void {
  onUnauthenticated = handler;
}

export type Query = Record<string, string | number | boolean | undefined | null>;

export function withQuery(path: string, query?: Query): string {
  if (!query) return path;
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined && value !== null && value !== "") params.set(name, String(value));
  }
  const text = params.toString();
  return text ? `${path}?${text}` : path;
}

async function errorOf(response: Response): Promise<ApiError> {
  let type = "";
  let message = `${response.status} ${response.statusText}`;
  let body: unknown = null;
  try {
    body = await response.json();
    const fields = (body ?? {}) as { type?: unknown; message?: unknown };
    if (typeof fields.type === "string") type = fields.type;
    if (typeof fields.message === "string") message = fields.message;
  } catch {
    // not JSON: keep the status line
  }
  // a route the server does not know answers Litestar's plain 404 "Not Found"
  if (response.status === 404 && message === "Not Found") type = "NotFound";
  return new ApiError(response.status, type, message, body);
}

export interface RequestOptions {
  query?: Query;
  body?: unknown;
  /** do not treat 401 as "the session ended" (the sign-in form itself) */
  quiet401?: boolean;
  signal?: AbortSignal;
}

export async function request<T>(
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<T> {
  const headers: Record<string, string> = { Accept: "application/json" };
  if (options.body !== undefined) headers["Content-Type"] = "application/json";
  if (method !== "GET" && method !== "HEAD" && csrfToken) headers["X-XSRF-TOKEN"] = csrfToken;
  const response = await fetch(withQuery(path, options.query), {
    method,
    headers,
    credentials: "same-origin",
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  });
  if (!response.ok) {
    const error = await errorOf(response);
    if (response.status === 401 && !options.quiet401 && onUnauthenticated) onUnauthenticated();
    throw error;
  }
  if (response.status === 204) return undefined as T;
  const text = await response.text();
  return (text ? JSON.parse(text) : undefined) as T;
}

export const get = <T>(path: string, query?: Query) => request<T>("GET", path, { query });
export const post = <T>(path: string, body?: unknown, query?: Query) =>
  request<T>("POST", path, { body: body ?? {}, query });
export const put = <T>(path: string, body?: unknown) => request<T>("PUT", path, { body: body ?? {} });
export const del = <T>(path: string, query?: Query) => request<T>("DELETE", path, { query });
