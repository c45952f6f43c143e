// The dashboard: per process definition its running instances, open incidents and open tasks,
// what failed in the last hour, and the deployed decisions.
import { api, type DefinitionStatistics } from "../api";
import type { Dashboard as DashboardData, DashboardDefinition } from "../api/extensions";
import { isNotAvailable, Problem, Show, useData, useTitle } from "../components/common";
import { formatTime, shortId } from "../lib/format";
import { paths } from "../lib/routes";
import { Link } from "../router";

/** Without the dashboard extension: Camunda's definition statistics (no task counts). */
function fromStatistics(rows: DefinitionStatistics[]): DashboardData & { partial: true } {
  const definitions: DashboardDefinition[] = rows.map((row) => {
    const d = row.definition as { id: string; key: string; name: string | null; version: number };
    return {
      id: d.id,
      key: d.key,
      name: d.name,
      version: d.version,
      runningInstances: row.instances,
      openIncidents: (row.incidents ?? []).reduce((sum, i) => sum + i.incidentCount, 0),
      openTasks: Number.NaN,
    };
  });
  return { definitions, failedLastHour: [], partial: true };
}

async function loadDashboard(): Promise<DashboardData & { partial?: true }> {
  try {
    return await api.dashboard();
  } catch (error) {
    if (!isNotAvailable(error)) throw error;
    return fromStatistics(await api.definitionsStatistics());
  }
}

export function Dashboard() {
  useTitle("Dashboard");
  const data = useData(loadDashboard, []);
  const decisions = useData(() => api.decisions({ latestVersion: true, sortBy: "key", sortOrder: "asc" }), []);
  return (
    <>
      <h1>Dashboard</h1>
      <Show data={data} what="the dashboard">
        {(dashboard) => (
          <>
            <section aria-labelledby="definitions-heading">
              <h2 id="definitions-heading">Process definitions</h2>
              {dashboard.definitions.length === 0 ? (
                <p>No process is deployed yet.</p>
              ) : (
                <table class="table" data-testid="definitions-table">
                  <thead>
                    <tr>
                      <th scope="col">Definition</th>
                      <th scope="col">Key</th>
                      <th scope="col" class="num">Version</th>
                      <th scope="col" class="num">Running instances</th>
                      <th scope="col" class="num">Open incidents</th>
                      <th scope="col" class="num">Open tasks</th>
                    </tr>
                  </thead>
                  <tbody>
                    {dashboard.definitions.map((d) => (
                      <tr key={d.id} data-testid={`definition-${d.key}`}>
                        <td>
                          <Link href={paths.definition(d.id)}>{d.name || d.key}</Link>
                        </td>
                        <td>
                          <code>{d.key}</code>
                        </td>
                        <td class="num">{d.version}</td>
                        <td class="num">
                          <Link href={`/cockpit/instances?definitionKey=${encodeURIComponent(d.key)}&state=running`}>
                            {d.runningInstances}
                          </Link>
                        </td>
                        <td class="num">
                          {d.openIncidents > 0 ? (
                            <Link
                              class="text-bad"
                              href={`/cockpit/instances?definitionKey=${encodeURIComponent(d.key)}&state=incident`}
                            >
                              {d.openIncidents}
                            </Link>
                          ) : (
                            0
                          )}
                        </td>
                        <td class="num">{Number.isNaN(d.openTasks) ? "—" : d.openTasks}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
            <section aria-labelledby="failed-heading">
              <h2 id="failed-heading">Failed in the last hour</h2>
              {"partial" in dashboard ? (
                <p class="notice" data-testid="not-available">
                  The last hour's failures (and open task counts) are not available on this server yet.
                </p>
              ) : dashboard.failedLastHour.length === 0 ? (
                <p>Nothing failed in the last hour.</p>
              ) : (
                <table class="table" data-testid="failures-table">
                  <thead>
                    <tr>
                      <th scope="col">Time (UTC)</th>
                      <th scope="col">Instance</th>
                      <th scope="col">Activity</th>
                      <th scope="col">Type</th>
                      <th scope="col">Message</th>
                    </tr>
                  </thead>
                  <tbody>
                    {dashboard.failedLastHour.map((f, i) => (
                      <tr key={`${f.processInstanceId}-${i}`}>
                        <td>{formatTime(f.time)}</td>
                        <td>
                          <Link href={paths.instance(f.processInstanceId)} title={f.processInstanceId}>
                            {shortId(f.processInstanceId)}
                          </Link>
                        </td>
                        <td>{f.activityId ?? "—"}</td>
                        <td>{f.incidentType}</td>
                        <td class="wrap">{f.message ?? ""}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </section>
          </>
        )}
      </Show>
      <section aria-labelledby="decisions-heading">
        <h2 id="decisions-heading">Decisions</h2>
        {decisions.error !== undefined ? (
          <Problem error={decisions.error} what="the decisions" />
        ) : decisions.data?.length === 0 ? (
          <p>No decision is deployed.</p>
        ) : (
          <ul class="inline-list">
            {(decisions.data ?? []).map((d) => (
              <li key={d.id}>
                <Link href={paths.decision(d.id)}>
                  {d.name || d.key} (v{d.version})
                </Link>
              </li>
            ))}
          </ul>
        )}
      </section>
    </>
  );
}
