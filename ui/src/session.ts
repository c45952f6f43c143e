// Who is signed in: GET /flowledger/v1/session, kept for every page; its CSRF token goes on
// every change the app sends. A server without the session endpoint is treated as one without
// sign-in (the REST API then allows every request, as the contract says).
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import type { Session } from "./api/extensions";
import { ApiError, setCsrfToken } from "./api/http";

export const OPEN_SESSION: Session = {
  authenticationRequired: false,
  authenticated: true,
  user: null,
  groups: [],
  csrfToken: null,
};

let current: Session | null = null;
let endpointMissing = false;
const listeners = new Set<(session: Session | null) => void>();

export function setSession(session: Session | null): void {
  current = session;
  setCsrfToken(session?.csrfToken ?? null);
  for (const listener of listeners) listener(session);
}

export async function loadSession(): Promise<Session> {
  try {
    const session = await api.session();
    endpointMissing = false;
    setSession(session);
    return session;
  } catch (error) {
    if (error instanceof ApiError && error.notAvailable) {
      endpointMissing = true;
      setSession(OPEN_SESSION);
      return OPEN_SESSION;
    }
    throw error;
  }
}

export function sessionEndpointMissing(): boolean {
  return endpointMissing;
}

export function useSession(): Session | null {
  const [session, set] = useState(current);
  useEffect(() => {
    listeners.add(set);
    set(current);
    return () => {
      listeners.delete(set);
    };
  }, []);
  return session;
}

export function mustSignIn(session: Session): boolean {
  return session.authenticationRequired && !session.authenticated;
}
