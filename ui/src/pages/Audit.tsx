// Audit: the log's head (its anchor, to keep outside the database), a full verification run as a
// background task on the server with its progress, and one instance's audit package to download.
import { useEffect, useRef, useState } from "preact/hooks";
import { api } from "../api";
import type { VerifyTask } from "../api/extensions";
import { Problem, Show, errorText, isNotAvailable, useData, useTitle } from "../components/common";

const POLL_MS = 500;

function Verify() {
  const [task, setTask] = useState<VerifyTask | null>(null);
  const [error, setError] = useState<unknown>(undefined);
  const [starting, setStarting] = useState(false);
  const timer = useRef<ReturnType<typeof setTimeout> | undefined>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);

  const poll = (id: string) => {
    timer.current = setTimeout(async () => {
      try {
        const next = await api.verifyTask(id);
        setTask(next);
        if (next.state === "running") poll(id);
      } catch (failure) {
        setError(failure);
      }
    }, POLL_MS);
  };

  const start = async () => {
    setStarting(true);
    setError(undefined);
    setTask(null);
    try {
      const { id } = await api.startVerify();
      setTask({ id, state: "running", checked: 0, total: 0, report: null });
      poll(id);
    } catch (failure) {
      setError(failure);
    } finally {
      setStarting(false);
    }
  };

  const running = task?.state === "running";
  const report = task?.report;
  return (
    <section class="card" aria-labelledby="verify-heading">
      <h2 id="verify-heading">Verify the log</h2>
      <p>
        Checks every hash chain, the command log, that replaying the log gives the live state, and that the tables equal a
        rebuild. It runs on the server in the background; this page only follows it.
      </p>
      <button type="button" class="primary" onClick={start} disabled={starting || running} data-testid="verify-start">
        {running ? "Verifying…" : "Start verification"}
      </button>
      {error !== undefined &&
        (isNotAvailable(error) ? (
          <p class="notice" data-testid="not-available">
            Background verification is not available on this server yet.
          </p>
        ) : (
          <p class="error" role="alert">
            {errorText(error)}
          </p>
        ))}
      {task && (
        <div style={{ marginTop: "0.75rem" }}>
          <label for="verify-progress">Progress</label>
          <progress
            id="verify-progress"
            data-testid="verify-progress"
            max={task.total || 1}
            value={task.state === "running" ? task.checked : task.total || 1}
          />
          <p role="status">
            {task.state === "running"
              ? `${task.checked} of ${task.total || "?"} checked…`
              : task.state === "failed"
                ? "The verification could not finish."
                : "Finished."}
          </p>
        </div>
      )}
      {report && (
        <div data-testid="verify-report" class={report.ok ? "flash" : "error"}>
          <strong>{report.ok ? "Everything agrees." : `${report.problems.length} problem(s) found.`}</strong>{" "}
          {report.commitsChecked} commits, {report.streamsChecked} streams, {report.rowsCompared} rows compared. Anchor{" "}
          <code>{report.anchor}</code>
          {report.problems.length > 0 && (
            <ul>
              {report.problems.map((p) => (
                <li key={p}>{p}</li>
              ))}
            </ul>
          )}
        </div>
      )}
    </section>
  );
}

export function Audit() {
  useTitle("Audit");
  const head = useData(() => api.logHead(), []);
  const [instanceId, setInstanceId] = useState("");
  const id = instanceId.trim();
  return (
    <>
      <h1>Audit</h1>
      <section class="card" aria-labelledby="head-heading">
        <h2 id="head-heading">The log's head</h2>
        <Show data={head} what="the log's head">
          {(h) => (
            <>
              <dl class="facts">
                <dt>Anchor</dt>
                <dd>
                  <code data-testid="log-anchor">{h.anchor}</code>
                </dd>
                <dt>Last position</dt>
                <dd>{h.position}</dd>
                <dt>Commits</dt>
                <dd>{h.commits}</dd>
                <dt>Chain checks</dt>
                <dd>
                  {h.problems.length === 0 ? (
                    <span class="chip chip-ok">intact</span>
                  ) : (
                    <ul class="error">
                      {h.problems.map((p) => (
                        <li key={p}>{p}</li>
                      ))}
                    </ul>
                  )}
                </dd>
              </dl>
              <p class="muted">
                Keep the anchor outside the database: a later verification against it shows whether the log was rewritten.
              </p>
            </>
          )}
        </Show>
        {head.error !== undefined && <Problem error={head.error} what="the log's head" />}
      </section>
      <Verify />
      <section class="card" aria-labelledby="export-heading">
        <h2 id="export-heading">Export an instance's audit package</h2>
        <p>The package holds the instance's commits with their hashes, so it can be checked and imported elsewhere.</p>
        <div class="toolbar">
          <label for="export-id">Process instance id</label>
          <input id="export-id" value={instanceId} onInput={(e) => setInstanceId(e.currentTarget.value)} size={40} />
          {id ? (
            <a class="button primary" href={api.packageUrl(id)} download data-testid="export-link">
              Download package
            </a>
          ) : (
            <span class="muted">enter an id to download its package</span>
          )}
        </div>
      </section>
    </>
  );
}
