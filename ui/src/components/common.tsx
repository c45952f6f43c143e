// Pieces every page uses: loading data with a stale-answer guard, the loading / error /
// "not available on this server" states, a pager, and page titles.
import type { ComponentChildren } from "preact";
import { useCallback, useEffect, useRef, useState } from "preact/hooks";
import { ApiError } from "../api/http";
import { Link } from "../router";

export interface Data<T> {
  data: T | undefined;
  error: unknown;
  loading: boolean;
  reload: () => void;
}

/** Runs `load` whenever `deps` change; an answer to an older call is dropped. */
export function useData<T>(load: () => Promise<T>, deps: unknown[]): Data<T> {
  const [state, setState] = useState<{ data: T | undefined; error: unknown; loading: boolean }>({
    data: undefined,
    error: undefined,
    loading: true,
  });
  const [tick, setTick] = useState(0);
  const call = useRef(0);
  useEffect(() => {
    const mine = ++call.current;
    setState((s) => ({ ...s, loading: true }));
    load().then(
      (data) => {
        if (call.current === mine) setState({ data, error: undefined, loading: false });
      },
      (error: unknown) => {
        if (call.current === mine) setState({ data: undefined, error, loading: false });
      },
    );
  }, [...deps, tick]);
  const reload = useCallback(() => setTick((t) => t + 1), []);
  return { ...state, reload };
}

export function isNotAvailable(error: unknown): boolean {
  return error instanceof ApiError && error.notAvailable;
}

export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  if (error instanceof Error) return error.message;
  return String(error);
}

export function Loading({ what }: { what?: string }) {
  return (
    <p class="muted" role="status">
      Loading{what ? ` ${what}` : ""}…
    </p>
  );
}

/** A failed call: "not available" when this server lacks the endpoint, else its message. */
export function Problem({ error, what }: { error: unknown; what: string }) {
  if (isNotAvailable(error)) {
    return (
      <p class="notice" data-testid="not-available">
        Not available on this server yet: {what}.
      </p>
    );
  }
  return (
    <p class="error" role="alert">
      Could not load {what}: {errorText(error)}
    </p>
  );
}

/** Renders `children(data)` once loaded, the loading or problem state before. */
export function Show<T>({
  data,
  what,
  children,
}: {
  data: Data<T>;
  what: string;
  children: (value: T) => ComponentChildren;
}) {
  if (data.error !== undefined) return <Problem error={data.error} what={what} />;
  if (data.data === undefined) return <Loading what={what} />;
  return <>{children(data.data)}</>;
}

export function Pager({
  page,
  total,
  pageSize,
  hrefFor,
  label,
}: {
  page: number;
  total: number | undefined;
  pageSize: number;
  hrefFor: (page: number) => string;
  label: string;
}) {
  const pages = total === undefined ? undefined : Math.max(1, Math.ceil(total / pageSize));
  const first = (page - 1) * pageSize + 1;
  const last = total === undefined ? undefined : Math.min(total, page * pageSize);
  return (
    <nav class="pager" aria-label={label}>
      {page > 1 ? (
        <Link href={hrefFor(page - 1)} rel="prev">
          ← Previous
        </Link>
      ) : (
        <span class="muted" aria-hidden="true">
          ← Previous
        </span>
      )}
      <span data-testid="pager-status">
        {total === undefined
          ? `Page ${page}`
          : total === 0
            ? "None found"
            : `${first}–${last} of ${total} (page ${page} of ${pages})`}
      </span>
      {pages !== undefined && page < pages ? (
        <Link href={hrefFor(page + 1)} rel="next">
          Next →
        </Link>
      ) : (
        <span class="muted" aria-hidden="true">
          Next →
        </span>
      )}
    </nav>
  );
}

export function useTitle(title: string): void {
  useEffect(() => {
    document.title = `${title} · flowledger`;
  }, [title]);
}

/** A short-lived message read out by screen readers (role=status). */
export function Flash({ message }: { message: string | null }) {
  return (
    <p class={message ? "flash" : "visually-hidden"} role="status">
      {message ?? ""}
    </p>
  );
}

export function ChainBadge({ chain }: { chain: string | undefined }) {
  if (!chain) return <span class="chip chip-muted">not checked</span>;
  return (
    <span class={`chip ${chain === "verified" ? "chip-ok" : "chip-bad"}`} data-testid="chain-status">
      {chain}
    </span>
  );
}
