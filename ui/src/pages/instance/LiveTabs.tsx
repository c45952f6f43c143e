// The instance as it is now, with what can be done to it: edit variables, set job retries,
// retry incidents; its open tasks and its activity-instance tree.
import { useState } from "preact/hooks";
import { api, type ActivityInstance, type Incident, type VariableValue } from "../../api";
import { Flash, Show, errorText, useData } from "../../components/common";
import { formatTime, formatValue, shortId } from "../../lib/format";
import { paths } from "../../lib/routes";
import { VARIABLE_TYPES, editText, isEditable, parseVariable } from "../../lib/variables";
import { Link } from "../../router";

type Changed = () => void;

function useAction(onChanged: Changed) {
  const [message, setMessage] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (action: () => Promise<unknown>, done: string) => {
    setBusy(true);
    setProblem(null);
    setMessage(null);
    try {
      await action();
      setMessage(done);
      onChanged();
    } catch (error) {
      setProblem(errorText(error));
    } finally {
      setBusy(false);
    }
  };
  const view = (
    <>
      <Flash message={message} />
      {problem && (
        <p class="error" role="alert">
          {problem}
        </p>
      )}
    </>
  );
  return { run, busy, view };
}

function VariableEditor({
  id,
  name,
  current,
  onDone,
  onCancel,
}: {
  id: string;
  name: string | null;
  current: VariableValue | null;
  onDone: () => void;
  onCancel: () => void;
}) {
  const [newName, setNewName] = useState(name ?? "");
  const [type, setType] = useState<string>(isEditable(current?.type) ? (current?.type as string) : "String");
  const [text, setText] = useState(editText(current?.type, current?.value));
  const [problem, setProblem] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const prefix = `edit-${name ?? "new"}`;
  const save = async (event: Event) => {
    event.preventDefault();
    const parsed = parseVariable(type, text);
    if (!parsed.ok) {
      setProblem(parsed.message);
      return;
    }
    if (!newName.trim()) {
      setProblem("A variable needs a name");
      return;
    }
    setBusy(true);
    try {
      await api.setVariable(id, newName.trim(), parsed.body);
      onDone();
    } catch (error) {
      setProblem(errorText(error));
      setBusy(false);
    }
  };
  return (
    <form class="toolbar" onSubmit={save} aria-label={name ? `Edit ${name}` : "Add a variable"}>
      {name === null && (
        <>
          <label for={`${prefix}-name`}>Name</label>
          <input id={`${prefix}-name`} value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
        </>
      )}
      <label for={`${prefix}-type`}>Type</label>
      <select id={`${prefix}-type`} value={type} onChange={(e) => setType(e.currentTarget.value)}>
        {VARIABLE_TYPES.map((t) => (
          <option key={t}>{t}</option>
        ))}
      </select>
      <label for={`${prefix}-value`}>Value</label>
      <input
        id={`${prefix}-value`}
        value={text}
        disabled={type === "Null"}
        aria-invalid={problem ? "true" : undefined}
        aria-describedby={problem ? `${prefix}-error` : undefined}
        onInput={(e) => setText(e.currentTarget.value)}
      />
      <button type="submit" class="primary" disabled={busy}>
        Save
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
      {problem && (
        <span id={`${prefix}-error`} class="field-error" role="alert">
          {problem}
        </span>
      )}
    </form>
  );
}

export function LiveVariables({ id, ended, onChanged }: { id: string; ended: boolean; onChanged: Changed }) {
  const variables = useData(() => api.variables(id), [id]);
  const [editing, setEditing] = useState<string | null | undefined>(undefined);
  const action = useAction(() => {
    variables.reload();
    onChanged();
  });
  return (
    <section aria-labelledby="variables-heading">
      <h2 id="variables-heading">Variables</h2>
      {action.view}
      <Show data={variables} what="the variables">
        {(vars) => (
          <>
            <table class="table" data-testid="variables-table">
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Type</th>
                  <th scope="col">Value</th>
                  <th scope="col">
                    <span class="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {Object.entries(vars).map(([name, v]) => (
                  <tr key={name} data-testid={`variable-${name}`}>
                    <td>
                      <code>{name}</code>
                    </td>
                    <td>{v.type}</td>
                    <td class="wrap">
                      {editing === name ? (
                        <VariableEditor
                          id={id}
                          name={name}
                          current={v}
                          onCancel={() => setEditing(undefined)}
                          onDone={() => {
                            setEditing(undefined);
                            variables.reload();
                            onChanged();
                          }}
                        />
                      ) : (
                        <code>{formatValue(v.value)}</code>
                      )}
                    </td>
                    <td>
                      {!ended && editing !== name && (
                        <div class="toolbar">
                          <button type="button" class="small" onClick={() => setEditing(name)}>
                            Edit <span class="visually-hidden">{name}</span>
                          </button>
                          <button
                            type="button"
                            class="small danger"
                            disabled={action.busy}
                            onClick={() => action.run(() => api.deleteVariable(id, name), `Deleted ${name}`)}
                          >
                            Delete <span class="visually-hidden">{name}</span>
                          </button>
                        </div>
                      )}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
            {!ended &&
              (editing === null ? (
                <VariableEditor
                  id={id}
                  name={null}
                  current={null}
                  onCancel={() => setEditing(undefined)}
                  onDone={() => {
                    setEditing(undefined);
                    variables.reload();
                    onChanged();
                  }}
                />
              ) : (
                <button type="button" onClick={() => setEditing(null)}>
                  Add a variable
                </button>
              ))}
          </>
        )}
      </Show>
    </section>
  );
}

export function LiveTasks({ id }: { id: string }) {
  const tasks = useData(() => api.tasks({ processInstanceId: id, sortBy: "created", sortOrder: "asc" }), [id]);
  return (
    <section aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Open tasks</h2>
      <Show data={tasks} what="the tasks">
        {(rows) =>
          rows.length === 0 ? (
            <p>No open task.</p>
          ) : (
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Task</th>
                  <th scope="col">Activity</th>
                  <th scope="col">Assignee</th>
                  <th scope="col">Created (UTC)</th>
                  <th scope="col">Due (UTC)</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((t) => (
                  <tr key={t.id} data-testid={`task-${t.id}`}>
                    <td>
                      <Link href={paths.task(t.id)}>{t.name ?? t.id}</Link>
                    </td>
                    <td>{t.taskDefinitionKey}</td>
                    <td>{t.assignee ?? "—"}</td>
                    <td>{formatTime(t.created)}</td>
                    <td>{formatTime(t.due)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

export function LiveJobs({ id, onChanged }: { id: string; onChanged: Changed }) {
  const jobs = useData(() => api.jobs({ processInstanceId: id }), [id]);
  const [retries, setRetries] = useState<Record<string, string>>({});
  const action = useAction(() => {
    jobs.reload();
    onChanged();
  });
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Jobs</h2>
      {action.view}
      <Show data={jobs} what="the jobs">
        {(rows) =>
          rows.length === 0 ? (
            <p>No job.</p>
          ) : (
            <table class="table">
              <thead>
                <tr>
                  <th scope="col">Job</th>
                  <th scope="col">Due (UTC)</th>
                  <th scope="col" class="num">Retries</th>
                  <th scope="col">Failure</th>
                  <th scope="col">Set retries</th>
                </tr>
              </thead>
              <tbody>
                {rows.map((job) => (
                  <tr key={job.id} data-testid={`job-${job.id}`}>
                    <td title={job.id}>
                      {shortId(job.id)}
                      {job.suspended && <span class="chip state-suspended">suspended</span>}
                    </td>
                    <td>{formatTime(job.dueDate)}</td>
                    <td class="num">{job.retries}</td>
                    <td class="wrap">{job.exceptionMessage ?? ""}</td>
                    <td>
                      <form
                        class="toolbar"
                        onSubmit={(e) => {
                          e.preventDefault();
                          const n = Number(retries[job.id] ?? "1");
                          action.run(() => api.setJobRetries(job.id, n), `Job ${shortId(job.id)} has ${n} retries`);
                        }}
                      >
                        <label class="visually-hidden" for={`retries-${job.id}`}>
                          Retries for job {job.id}
                        </label>
                        <input
                          id={`retries-${job.id}`}
                          type="number"
                          min={0}
                          step={1}
                          style={{ width: "5rem" }}
                          value={retries[job.id] ?? "1"}
                          onInput={(e) => setRetries({ ...retries, [job.id]: e.currentTarget.value })}
                        />
                        <button type="submit" class="small" disabled={action.busy}>
                          Set retries
                        </button>
                      </form>
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          )
        }
      </Show>
    </section>
  );
}

export function canRetry(incident: Incident): boolean {
  return (
    !!incident.configuration &&
    (incident.incidentType === "failedJob" || incident.incidentType === "failedExternalTask")
  );
}

/** Retrying an incident gives its job or external task one more try (Camunda's Cockpit too). */
export function retryIncident(incident: Incident): Promise<void> | null {
  const target = incident.configuration;
  if (!target || !canRetry(incident)) return null;
  if (incident.incidentType === "failedJob") return api.setJobRetries(target, 1);
  if (incident.incidentType === "failedExternalTask") return api.setExternalTaskRetries(target, 1);
  return null;
}

export function LiveIncidents({ id, onChanged }: { id: string; onChanged: Changed }) {
  const incidents = useData(() => api.incidents({ processInstanceId: id }), [id]);
  const action = useAction(() => {
    incidents.reload();
    onChanged();
  });
  const retryable = (incidents.data ?? []).filter(canRetry);
  return (
    <section aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents</h2>
      {action.view}
      <Show data={incidents} what="the incidents">
        {(rows) =>
          rows.length === 0 ? (
            <p>No open incident.</p>
          ) : (
            <>
              {retryable.length > 0 && (
                <button
                  type="button"
                  class="primary"
                  data-testid="retry-all"
                  disabled={action.busy}
                  onClick={() =>
                    action.run(
                      () => Promise.all(rows.map((i) => retryIncident(i)).filter((p) => p !== null)),
                      "Retried all incidents",
                    )
                  }
                >
                  Retry all
                </button>
              )}
              <table class="table">
                <thead>
                  <tr>
                    <th scope="col">Time (UTC)</th>
                    <th scope="col">Type</th>
                    <th scope="col">Activity</th>
                    <th scope="col">Message</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {rows.map((incident) => (
                    <tr key={incident.id} data-testid={`incident-${incident.id}`}>
                      <td>{formatTime(incident.incidentTimestamp)}</td>
                      <td>{incident.incidentType}</td>
                      <td>{incident.activityId ?? "—"}</td>
                      <td class="wrap">{incident.incidentMessage ?? ""}</td>
                      <td>
                        {canRetry(incident) ? (
                          <button
                            type="button"
                            class="small"
                            data-testid={`retry-${incident.id}`}
                            disabled={action.busy}
                            onClick={() => action.run(() => retryIncident(incident)!, "Incident retried")}
                          >
                            Retry <span class="visually-hidden">incident at {incident.activityId}</span>
                          </button>
                        ) : null}
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </>
          )
        }
      </Show>
    </section>
  );
}

function TreeNode({ node }: { node: ActivityInstance }) {
  const children = node.childActivityInstances ?? [];
  const transitions = node.childTransitionInstances ?? [];
  return (
    <li>
      <span>
        {node.activityName ?? node.activityId} <code class="muted">{node.activityType}</code>
        {(node.incidentIds ?? []).length > 0 && <span class="chip chip-bad"> incident</span>}
      </span>
      {children.length + transitions.length > 0 && (
        <ul>
          {children.map((child) => (
            <TreeNode key={child.id} node={child} />
          ))}
          {transitions.map((t) => (
            <li key={t.id}>
              {t.activityName ?? t.activityId} <span class="muted">(waiting for its job)</span>
            </li>
          ))}
        </ul>
      )}
    </li>
  );
}

export function LiveTree({ id, ended }: { id: string; ended: boolean }) {
  const tree = useData(() => (ended ? Promise.resolve(null) : api.activityTree(id)), [id, ended]);
  return (
    <section aria-labelledby="tree-heading">
      <h2 id="tree-heading">Activity instances</h2>
      <Show data={tree} what="the activity-instance tree">
        {(root) =>
          root === null ? (
            <p>The instance has ended: no activity is active.</p>
          ) : (
            <ul data-testid="activity-tree">
              <TreeNode node={root} />
            </ul>
          )
        }
      </Show>
    </section>
  );
}
