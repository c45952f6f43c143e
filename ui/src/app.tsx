// The app's frame: the session check (sign-in when the server requires it), the header with its
// navigation and sign-out, and the page for the current route.
import { useEffect, useState } from "preact/hooks";
import { api } from "./api";
import { setUnauthenticatedHandler } from "./api/http";
import { errorText } from "./components/common";
import { loginHref, matchRoute, type Route } from "./lib/routes";
import { Audit } from "./pages/Audit";
import { Batches } from "./pages/Batches";
import { Dashboard } from "./pages/Dashboard";
import { Decision } from "./pages/Decision";
import { Definition } from "./pages/Definition";
import { Home } from "./pages/Home";
import { Instance } from "./pages/Instance";
import { InstanceSearch } from "./pages/InstanceSearch";
import { Login } from "./pages/Login";
import { Migration } from "./pages/Migration";
import { StartForm } from "./pages/StartForm";
import { TaskPage } from "./pages/TaskPage";
import { Tasklist } from "./pages/Tasklist";
import { Link, navigate, useLocation } from "./router";
import { OPEN_SESSION, loadSession, mustSignIn, sessionEndpointMissing, setSession, useSession } from "./session";

function Page({ route }: { route: Route }) {
  switch (route.name) {
    case "home":
      return <Home />;
    case "login":
      return <Login />;
    case "dashboard":
      return <Dashboard />;
    case "definition":
      return <Definition key={route.id} id={route.id} />;
    case "migration":
      return <Migration key={route.id} id={route.id} />;
    case "batches":
      return <Batches />;
    case "instances":
      return <InstanceSearch />;
    case "instance":
      return <Instance key={route.id} id={route.id} />;
    case "decision":
      return <Decision id={route.id} />;
    case "audit":
      return <Audit />;
    case "tasklist":
      return <Tasklist />;
    case "task":
      return <TaskPage id={route.id} />;
    case "start":
      return <StartForm id={route.id} />;
    default:
      return (
        <>
          <h1>Page not found</h1>
          <p>
            Go to the <Link href="/cockpit">cockpit</Link> or the <Link href="/tasklist">tasklist</Link>.
          </p>
        </>
      );
  }
}

const NAV: [string, string, (route: Route) => boolean][] = [
  ["/cockpit", "Dashboard", (r) => ["dashboard", "definition", "migration", "decision"].includes(r.name)],
  ["/cockpit/instances", "Instances", (r) => r.name === "instances" || r.name === "instance"],
  ["/cockpit/batches", "Batches", (r) => r.name === "batches"],
  ["/cockpit/audit", "Audit", (r) => r.name === "audit"],
  ["/tasklist", "Tasklist", (r) => ["tasklist", "task", "start"].includes(r.name)],
];

function Header({ route }: { route: Route }) {
  const session = useSession();
  const [problem, setProblem] = useState<string | null>(null);
  const signOut = async () => {
    try {
      await api.signOut();
    } catch (error) {
      setProblem(errorText(error));
      return;
    }
    setSession({ ...(session ?? OPEN_SESSION), authenticated: false, user: null, groups: [], csrfToken: null });
    navigate("/login", { replace: true });
  };
  return (
    <header class="app-header">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <Link href="/" class="brand">
        flowledger
      </Link>
      <nav aria-label="Main">
        <ul>
          {NAV.map(([href, label, active]) => (
            <li key={href}>
              <Link href={href} aria-current={active(route) ? "page" : undefined}>
                {label}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div class="user">
        {session?.user && (
          <span data-testid="signed-in-user">
            Signed in as <strong>{session.user}</strong>
          </span>
        )}
        {!session?.authenticationRequired && (
          <span class="muted">{sessionEndpointMissing() ? "no sign-in on this server" : "open server (no users)"}</span>
        )}
        {session?.authenticationRequired && session.authenticated && (
          <button type="button" onClick={signOut} data-testid="sign-out">
            Sign out
          </button>
        )}
        {problem && (
          <span class="error" role="alert">
            Sign-out failed: {problem}
          </span>
        )}
      </div>
    </header>
  );
}

export function App() {
  const location = useLocation();
  const session = useSession();
  const [failure, setFailure] = useState<string | null>(null);
  const route = matchRoute(location.path);

  useEffect(() => {
    loadSession().catch((error: unknown) => setFailure(errorText(error)));
    setUnauthenticatedHandler(() => {
      loadSession().catch(() => undefined);
    });
    return () => setUnauthenticatedHandler(null);
  }, []);

  const redirect = session !== null && mustSignIn(session) && route.name !== "login";
  useEffect(() => {
    if (redirect) navigate(loginHref(location.href), { replace: true });
  }, [redirect, location.href]);

  if (failure) {
    return (
      <main id="main" class="main">
        <h1>flowledger</h1>
        <p class="error" role="alert">
          The server did not answer: {failure}
        </p>
      </main>
    );
  }
  if (session === null || redirect) {
    return (
      <main id="main" class="main">
        <p class="muted" role="status">
          Loading…
        </p>
      </main>
    );
  }
  if (route.name === "login") {
    return (
      <main id="main" class="main main-narrow">
        <Login />
      </main>
    );
  }
  return (
    <>
      <Header route={route} />
      <main id="main" class="main" tabIndex={-1}>
        <Page route={route} />
      </main>
    </>
  );
}
