// The engine's batches (Camunda's /batch): the running ones with a progress bar each, read again
// every 2 s while one runs, suspend / activate / delete; the finished ones from history.
// `?batch=ID` is the batch just started (a migration run as batch): it is shown first.
import { useEffect, useRef, useState } from "preact/hooks";
import { api, type BatchStatistics, type HistoricBatch } from "../api";
import { type Data, errorText, Problem, Show, useData, useTitle } from "../components/common";
import { formatTime, shortId } from "../lib/format";
import { anyRunning, batchProgress, batchState, batchTypeName } from "../lib/migration";
import { paths } from "../lib/routes";
import { navigate, useLocation } from "../router";

const POLL_MILLIS = 2000;
const FINISHED = 50;
/** how many polls a batch named in the URL may take to show up (30 s) */
const GIVE_UP_LOOKS = 15;

function ProgressBar({ batch, where }: { batch: BatchStatistics; where: "batch" | "focus" }) {
  const progress = batchProgress(batch);
  const id = `${where}-progress-${batch.id}`;
  return (
    <div class="batch-progress">
      <label for={id} class="visually-hidden">
        Progress of batch {batch.id}
      </label>
      <progress id={id} data-testid={id} max={Math.max(progress.total, 1)} value={progress.completed}>
        {progress.percent}%
      </progress>
      <span data-testid={`${where}-jobs-${batch.id}`}>
        {progress.completed} of {progress.total} jobs done ({progress.percent}%)
        {progress.failed > 0 && <strong class="text-bad">, {progress.failed} failed</strong>}
        {batch.remainingJobs > 0 && `, ${batch.remainingJobs} to go`}
      </span>
    </div>
  );
}

function BatchActions({ batch, onChanged }: { batch: BatchStatistics; onChanged: (message: string) => void }) {
  const [confirming, setConfirming] = useState(false);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const act = async (what: () => Promise<void>, message: string) => {
    setBusy(true);
    setProblem(null);
    try {
      await what();
      onChanged(message);
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setBusy(false);
      setConfirming(false);
    }
  };
  const short = shortId(batch.id);
  return (
    <div class="toolbar batch-actions">
      {batch.suspended ? (
        <button
          type="button"
          disabled={busy}
          onClick={() => act(() => api.suspendBatch(batch.id, false), `Batch ${short} activated`)}
          aria-label={`Activate batch ${batch.id}`}
        >
          Activate
        </button>
      ) : (
        <button
          type="button"
          disabled={busy}
          onClick={() => act(() => api.suspendBatch(batch.id, true), `Batch ${short} suspended`)}
          aria-label={`Suspend batch ${batch.id}`}
        >
          Suspend
        </button>
      )}
      {confirming ? (
        <>
          <button
            type="button"
            class="danger"
            disabled={busy}
            onClick={() => act(() => api.deleteBatch(batch.id), `Batch ${short} deleted with its jobs`)}
          >
            Delete it and its jobs
          </button>
          <button type="button" onClick={() => setConfirming(false)}>
            Keep it
          </button>
        </>
      ) : (
        <button
          type="button"
          class="danger"
          disabled={busy}
          onClick={() => setConfirming(true)}
          aria-label={`Delete batch ${batch.id}`}
        >
          Delete
        </button>
      )}
      {problem && (
        <span class="error" role="alert">
          {problem}
        </span>
      )}
    </div>
  );
}

/** Why a batch's jobs fail: the exception of each failed batch job (a migration: the instance
 * the plan cannot move, in Camunda's words). */
function FailedJobs({ batch, onChanged }: { batch: BatchStatistics; onChanged: (message: string) => void }) {
  const [problem, setProblem] = useState<string | null>(null);
  const retry = async (ids: string[]) => {
    setProblem(null);
    try {
      for (const id of ids) await api.setJobRetries(id, 1);
      onChanged(`${ids.length} failed job${ids.length === 1 ? "" : "s"} will run again`);
    } catch (error) {
      setProblem(errorText(error));
    }
  };
  const jobs = useData(
    () =>
      batch.batchJobDefinitionId
        ? api.jobs({ jobDefinitionId: batch.batchJobDefinitionId, withException: true, maxResults: 20 })
        : Promise.resolve([]),
    [batch.batchJobDefinitionId, batch.failedJobs],
  );
  return (
    <Show data={jobs} what="the failed jobs">
      {(rows) =>
        rows.length > 0 && (
          <div class="error" data-testid="failed-batch-jobs">
            <p>Failed jobs (retried while they have retries; an incident once they have none):</p>
            <ul>
              {rows.map((job) => (
                <li key={job.id}>
                  <code title={job.id}>{shortId(job.id)}</code> ({job.retries} retries left):{" "}
                  {job.exceptionMessage ?? "no message"}
                </li>
              ))}
            </ul>
            {rows.some((job) => job.retries === 0) && (
              <button
                type="button"
                onClick={() => retry(rows.filter((job) => job.retries === 0).map((job) => job.id))}
                data-testid="retry-batch-jobs"
              >
                Retry the failed jobs
              </button>
            )}
            {problem && <p role="alert">{problem}</p>}
          </div>
        )
      }
    </Show>
  );
}

/** The batch the page was opened for: its progress while it runs, its end once it finished. */
function Focus({
  id,
  running,
  finished,
  lost,
  onChanged,
}: {
  id: string;
  running: BatchStatistics | undefined;
  finished: HistoricBatch | undefined;
  /** it ran and is gone, or never showed up, and the history has no record of it */
  lost: "ended" | "missing" | null;
  onChanged: (message: string) => void;
}) {
  let state;
  if (running) {
    state = (
      <>
        <p>
          {batchTypeName(running.type)} batch, <span class="chip">{batchState(running)}</span>
        </p>
        <ProgressBar batch={running} where="focus" />
        {running.failedJobs > 0 && <FailedJobs batch={running} onChanged={onChanged} />}
      </>
    );
  } else if (finished?.endTime) {
    state = (
      <p class="flash" data-testid="batch-completed">
        {batchTypeName(finished.type)} batch completed at {formatTime(finished.endTime)} UTC: {finished.totalJobs} job
        {finished.totalJobs === 1 ? "" : "s"} done.
      </p>
    );
  } else if (lost) {
    state = (
      <p class="notice" data-testid="batch-gone">
        {lost === "ended" ? "The batch is no longer running" : "No batch with this id runs"}, and the history has no
        record of it: the server keeps batches in history at history level full only, and a batch deleted with its
        jobs leaves none.
      </p>
    );
  } else {
    state = (
      <p class="muted" role="status">
        Waiting for the batch to show up…
      </p>
    );
  }
  return (
    <section class="card" aria-labelledby="batch-focus-heading" data-testid="batch-focus">
      <h2 id="batch-focus-heading">
        Batch <code title={id}>{shortId(id)}</code>
      </h2>
      {state}
    </section>
  );
}

export function Batches() {
  useTitle("Batches");
  const location = useLocation();
  const focus = location.query.get("batch");
  // one read of both, the history after the running ones: a batch that ends in between is in
  // the history when it is no longer running, never in neither
  const batches = useData(async () => {
    const running = await api.batchStatistics();
    const history = await api
      .historicBatches({ sortBy: "startTime", sortOrder: "desc", maxResults: FINISHED })
      .then(
        (rows) => ({ rows, error: undefined }),
        (error: unknown) => ({ rows: undefined, error }),
      );
    return { running, history };
  }, []);
  const running: Data<BatchStatistics[]> = { ...batches, data: batches.data?.running };
  const history = batches.data?.history ?? { rows: undefined, error: undefined };
  const [message, setMessage] = useState<string | null>(null);

  const focusRunning = running.data?.find((b) => b.id === focus);
  const focusFinished = history.rows?.find((b) => b.id === focus);
  // the focused batch ran and is gone, or has not shown up after a while: nothing to wait for
  const seen = useRef<string | null>(null);
  if (focusRunning) seen.current = focus;
  const [looks, setLooks] = useState(0);
  const unknown = focus !== null && !focusRunning && !focusFinished?.endTime;
  const lost = !unknown ? null : seen.current === focus ? "ended" : looks >= GIVE_UP_LOOKS ? "missing" : null;
  const focusPending = unknown && lost === null;
  const moving =
    anyRunning(running.data ?? []) || (focusPending && batches.error === undefined && history.error === undefined);
  // poll while something runs: a timer after each answer, so slow answers never pile up
  const { reload, loading } = batches;
  useEffect(() => {
    if (!moving || loading) return;
    const timer = window.setTimeout(() => {
      setLooks((n) => n + 1);
      reload();
    }, POLL_MILLIS);
    return () => window.clearTimeout(timer);
  }, [moving, loading, reload]);

  const changed = (text: string) => {
    setMessage(text);
    reload();
  };
  const finished = (history.rows ?? []).filter((b) => b.endTime);

  return (
    <>
      <div class="page-head">
        <h1>Batches</h1>
        <div class="toolbar">
          <span class="muted" data-testid="batch-polling">
            {moving ? "Refreshing every 2 s while a batch runs" : "Nothing running"}
          </span>
          {focus && (
            <button type="button" onClick={() => navigate(paths.batches(), { replace: true })}>
              Show all batches
            </button>
          )}
        </div>
      </div>
      {message && (
        <p class="flash" role="status">
          {message}
        </p>
      )}
      {focus && <Focus id={focus} running={focusRunning} finished={focusFinished} lost={lost} onChanged={changed} />}

      <section aria-labelledby="running-batches-heading">
        <h2 id="running-batches-heading">Running</h2>
        <Show data={running} what="the running batches">
          {(rows) =>
            rows.length === 0 ? (
              <p data-testid="no-running-batches">No batch is running.</p>
            ) : (
              <table class="table" data-testid="batches-table">
                <thead>
                  <tr>
                    <th scope="col">Batch</th>
                    <th scope="col">Started (UTC)</th>
                    <th scope="col">By</th>
                    <th scope="col">State</th>
                    <th scope="col">Progress</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((batch) => (
                    <tr key={batch.id} data-testid={`batch-${batch.id}`} class={batch.id === focus ? "current" : undefined}>
                      <td>
                        {batchTypeName(batch.type)} <code class="muted" title={batch.id}>{shortId(batch.id)}</code>
                      </td>
                      <td>{formatTime(batch.startTime)}</td>
                      <td>{batch.createUserId ?? "—"}</td>
                      <td>
                        <span
                          class={`chip ${batch.suspended ? "state-suspended" : batch.failedJobs > 0 ? "chip-bad" : "state-active"}`}
                          data-testid={`batch-state-${batch.id}`}
                        >
                          {batchState(batch)}
                        </span>
                      </td>
                      <td class="batch-progress-cell">
                        <ProgressBar batch={batch} where="batch" />
                      </td>
                      <td>
                        <BatchActions batch={batch} onChanged={changed} />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            )
          }
        </Show>
      </section>

      <section aria-labelledby="finished-batches-heading">
        <h2 id="finished-batches-heading">Finished</h2>
        {history.error !== undefined ? (
          <Problem error={history.error} what="the finished batches (history)" />
        ) : finished.length === 0 ? (
          <p class="muted">{batches.data === undefined ? "Loading…" : "No finished batch in history."}</p>
        ) : (
          <table class="table" data-testid="finished-batches">
            <thead>
              <tr>
                <th scope="col">Batch</th>
                <th scope="col">Started (UTC)</th>
                <th scope="col">Ended (UTC)</th>
                <th scope="col">By</th>
                <th scope="col" class="num">
                  Jobs
                </th>
              </tr>
            </thead>
            <tbody>
              {finished.map((batch) => (
                <tr
                  key={batch.id}
                  data-testid={`finished-batch-${batch.id}`}
                  class={batch.id === focus ? "current" : undefined}
                >
                  <td>
                    {batchTypeName(batch.type)} <code class="muted" title={batch.id}>{shortId(batch.id)}</code>
                  </td>
                  <td>{formatTime(batch.startTime)}</td>
                  <td>{formatTime(batch.endTime)}</td>
                  <td>{batch.createUserId ?? "—"}</td>
                  <td class="num">{batch.totalJobs}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </>
  );
}
