// The sign-in page: username and password → POST /flowledger/v1/session, then back to `next`.
import { useState } from "preact/hooks";
import { api } from "../api";
import { ApiError } from "../api/http";
import { errorText, useTitle } from "../components/common";
import { safeNext } from "../lib/routes";
import { navigate, useLocation } from "../router";
import { setSession } from "../session";

export function Login() {
  useTitle("Sign in");
  const location = useLocation();
  const next = safeNext(location.query.get("next"));
  const [username, setUsername] = useState("");
  const [password, setPassword] = useState("");
  const [message, setMessage] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setMessage(null);
    try {
      const session = await api.signIn(username, password);
      setSession(session);
      navigate(next, { replace: true });
    } catch (error) {
      if (error instanceof ApiError && error.status === 401) {
        setMessage(error.message || "Wrong username or password.");
      } else if (error instanceof ApiError && error.status === 429) {
        setMessage(`Too many attempts: ${error.message}`);
      } else {
        setMessage(`Sign-in failed: ${errorText(error)}`);
      }
      setBusy(false);
    }
  };

  return (
    <div class="login">
      <h1>Sign in to flowledger</h1>
      <form onSubmit={submit} class="card login-form" aria-describedby={message ? "login-error" : undefined}>
        <label for="username">Username</label>
        <input
          id="username"
          name="username"
          autoComplete="username"
          required
          value={username}
          onInput={(e) => setUsername(e.currentTarget.value)}
        />
        <label for="password">Password</label>
        <input
          id="password"
          name="password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        {message && (
          <p id="login-error" class="error" role="alert" data-testid="login-error">
            {message}
          </p>
        )}
        <button type="submit" class="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
    </div>
  );
}
