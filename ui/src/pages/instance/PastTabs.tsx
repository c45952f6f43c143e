// The instance as it was at a position (GET .../state): read-only variables, tasks, jobs,
// incidents and its activity tree, redrawn as the slider moves.
import type { ActivityView, InstanceView } from "../../api/extensions";
import { formatTime, formatValue, shortId } from "../../lib/format";

export function PastVariables({ view }: { view: InstanceView }) {
  return (
    <section aria-labelledby="variables-heading">
      <h2 id="variables-heading">Variables</h2>
      {view.variables.length === 0 ? (
        <p>No variable at this position.</p>
      ) : (
        <table class="table" data-testid="variables-table">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Type</th>
              <th scope="col">Value</th>
              <th scope="col">Scope</th>
            </tr>
          </thead>
          <tbody>
            {view.variables.map((v) => (
              <tr key={v.id} data-testid={`variable-${v.name}`}>
                <td>
                  <code>{v.name}</code>
                </td>
                <td>{v.type}</td>
                <td class="wrap">
                  <code>{formatValue(v.value)}</code>
                </td>
                <td>{v.scope}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function PastTasks({ view }: { view: InstanceView }) {
  return (
    <section aria-labelledby="tasks-heading">
      <h2 id="tasks-heading">Open tasks</h2>
      {view.tasks.length === 0 ? (
        <p>No open task at this position.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Task</th>
              <th scope="col">Activity</th>
              <th scope="col">Assignee</th>
              <th scope="col">Candidates</th>
              <th scope="col">Created (UTC)</th>
            </tr>
          </thead>
          <tbody>
            {view.tasks.map((t) => (
              <tr key={t.id} data-testid={`task-${t.id}`}>
                <td>{t.name ?? t.id}</td>
                <td>{t.taskDefinitionKey}</td>
                <td>{t.assignee ?? "—"}</td>
                <td>{[...t.candidateUsers, ...t.candidateGroups.map((g) => `group ${g}`)].join(", ") || "—"}</td>
                <td>{formatTime(t.created)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function PastJobs({ view }: { view: InstanceView }) {
  const none = view.jobs.length + view.externalTasks.length === 0;
  return (
    <section aria-labelledby="jobs-heading">
      <h2 id="jobs-heading">Jobs and external tasks</h2>
      {none ? (
        <p>No job at this position.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Id</th>
              <th scope="col">Kind</th>
              <th scope="col">Activity</th>
              <th scope="col" class="num">Retries</th>
              <th scope="col">Failure</th>
            </tr>
          </thead>
          <tbody>
            {view.jobs.map((j) => (
              <tr key={j.id} data-testid={`job-${j.id}`}>
                <td title={j.id}>{shortId(j.id)}</td>
                <td>{j.jobType}</td>
                <td>{j.activityId}</td>
                <td class="num">{j.retries}</td>
                <td class="wrap">{j.errorMessage ?? ""}</td>
              </tr>
            ))}
            {view.externalTasks.map((t) => (
              <tr key={t.id}>
                <td title={t.id}>{shortId(t.id)}</td>
                <td>external task ({t.topic})</td>
                <td>{t.activityId}</td>
                <td class="num">{t.retries ?? "—"}</td>
                <td class="wrap">{t.errorMessage ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

export function PastIncidents({ view }: { view: InstanceView }) {
  return (
    <section aria-labelledby="incidents-heading">
      <h2 id="incidents-heading">Incidents</h2>
      {view.incidents.length === 0 ? (
        <p>No open incident at this position.</p>
      ) : (
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Type</th>
              <th scope="col">Activity</th>
              <th scope="col">Message</th>
            </tr>
          </thead>
          <tbody>
            {view.incidents.map((i) => (
              <tr key={i.id} data-testid={`incident-${i.id}`}>
                <td>{i.incidentType}</td>
                <td>{i.activityId ?? "—"}</td>
                <td class="wrap">{i.message ?? ""}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </section>
  );
}

function Branch({ node, children }: { node: ActivityView; children: Map<string, ActivityView[]> }) {
  const kids = children.get(node.activityInstanceId) ?? [];
  return (
    <li>
      {node.activityName ?? node.activityId} <code class="muted">{node.activityType}</code>
      {kids.length > 0 && (
        <ul>
          {kids.map((k) => (
            <Branch key={k.activityInstanceId} node={k} children={children} />
          ))}
        </ul>
      )}
    </li>
  );
}

export function PastTree({ view }: { view: InstanceView }) {
  const ids = new Set(view.activities.map((a) => a.activityInstanceId));
  const children = new Map<string, ActivityView[]>();
  const roots: ActivityView[] = [];
  for (const a of view.activities) {
    if (ids.has(a.parentActivityInstanceId)) {
      children.set(a.parentActivityInstanceId, [...(children.get(a.parentActivityInstanceId) ?? []), a]);
    } else roots.push(a);
  }
  return (
    <section aria-labelledby="tree-heading">
      <h2 id="tree-heading">Activity instances</h2>
      {roots.length === 0 ? (
        <p>No activity was active at this position.</p>
      ) : (
        <ul data-testid="activity-tree">
          <li>
            {view.definitionKey} <code class="muted">process instance</code>
            <ul>
              {roots.map((r) => (
                <Branch key={r.activityInstanceId} node={r} children={children} />
              ))}
            </ul>
          </li>
        </ul>
      )}
    </section>
  );
}
