// The start page: links to the cockpit and the tasklist.
import { useTitle } from "../components/common";
import { Link } from "../router";

export function Home() {
  useTitle("Home");
  return (
    <>
      <h1>flowledger</h1>
      <div class="tiles">
        <Link href="/cockpit" class="tile">
          <strong>Cockpit</strong>
          <span>Processes on their diagrams, instances and their past, incidents, decisions, audit.</span>
        </Link>
        <Link href="/tasklist" class="tile">
          <strong>Tasklist</strong>
          <span>Your tasks and your groups' tasks, their forms, and starting processes.</span>
        </Link>
      </div>
      <p>
        The REST API is documented at <a href="/engine-rest/openapi">/engine-rest/openapi</a>.
      </p>
    </>
  );
}
