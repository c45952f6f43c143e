// One process definition: its versions, the diagram with a running / incident badge per
// activity (Camunda's statistics), an optional history heat map with durations, its instances.
import { useMemo } from "preact/hooks";
import { api } from "../api";
import { BpmnDiagram, type Decorations } from "../components/BpmnDiagram";
import { Pager, Problem, Show, isNotAvailable, useData, useTitle } from "../components/common";
import { badgeData, heatData } from "../lib/badges";
import { formatDuration, formatTime, shortId } from "../lib/format";
import { parsePage } from "../lib/instanceSearch";
import { activityNames } from "../lib/model";
import { paths } from "../lib/routes";
import { Link, navigate, useLocation } from "../router";

const PAGE_SIZE = 20;

async function loadHeat(id: string) {
  const statistics = await api.historicActivityStatistics(id);
  let durations = null;
  let durationsMissing = false;
  try {
    durations = await api.activityDurations(id);
  } catch (error) {
    if (!isNotAvailable(error)) throw error;
    durationsMissing = true;
  }
  return { heat: heatData(statistics, durations), durationsMissing };
}

export function Definition({ id }: { id: string }) {
  const location = useLocation();
  const showHeat = location.query.get("heat") === "1";
  const page = parsePage(location.query.get("page"));
  const definition = useData(() => api.definition(id), [id]);
  const key = definition.data?.key;
  useTitle(definition.data ? `${definition.data.name || definition.data.key} v${definition.data.version}` : "Definition");
  const versions = useData(
    () => (key ? api.definitions({ key, sortBy: "version", sortOrder: "desc" }) : Promise.resolve([])),
    [key],
  );
  const xml = useData(() => api.definitionXml(id), [id]);
  const statistics = useData(() => api.activityStatistics(id), [id]);
  const heat = useData(() => (showHeat ? loadHeat(id) : Promise.resolve(null)), [id, showHeat]);
  const instances = useData(
    () =>
      Promise.all([
        api.historicInstances({
          processDefinitionId: id,
          sortBy: "startTime",
          sortOrder: "desc",
          firstResult: (page - 1) * PAGE_SIZE,
          maxResults: PAGE_SIZE,
        }),
        api.historicInstanceCount({ processDefinitionId: id }),
      ]),
    [id, page],
  );

  const badges = useMemo(() => badgeData(statistics.data ?? []), [statistics.data]);
  const decorations: Decorations = useMemo(
    () => ({ badges, heat: showHeat ? (heat.data?.heat ?? null) : null }),
    [badges, showHeat, heat.data],
  );
  const names = useMemo(() => (xml.data ? activityNames(xml.data.bpmn20Xml) : new Map<string, string>()), [xml.data]);

  const hrefWith = (changes: Record<string, string | null>) => {
    const params = new URLSearchParams(location.query);
    for (const [name, value] of Object.entries(changes)) {
      if (value === null) params.delete(name);
      else params.set(name, value);
    }
    const text = params.toString();
    return `${paths.definition(id)}${text ? `?${text}` : ""}`;
  };

  return (
    <>
      <Show data={definition} what="the definition">
        {(d) => (
          <div class="page-head">
            <h1>
              {d.name || d.key} <span class="muted">v{d.version}</span>
            </h1>
            <div class="toolbar">
              <label for="version-select">Version</label>
              <select
                id="version-select"
                value={d.id}
                onChange={(e) => navigate(paths.definition(e.currentTarget.value))}
              >
                {(versions.data ?? [d]).map((v) => (
                  <option key={v.id} value={v.id}>
                    v{v.version}
                    {v.versionTag ? ` (${v.versionTag})` : ""}
                  </option>
                ))}
              </select>
              <label class="check">
                <input
                  type="checkbox"
                  checked={showHeat}
                  data-testid="heat-toggle"
                  onChange={(e) =>
                    navigate(hrefWith({ heat: e.currentTarget.checked ? "1" : null }), { replace: true })
                  }
                />
                Heat map (history)
              </label>
              <Link href={`/cockpit/instances?definitionKey=${encodeURIComponent(d.key)}`}>
                Search its instances
              </Link>
              <Link href={paths.migration(d.id)} class="button" data-testid="migrate-link">
                Migrate instances
              </Link>
            </div>
          </div>
        )}
      </Show>
      {statistics.error !== undefined && <Problem error={statistics.error} what="the activity statistics" />}
      {showHeat && heat.error !== undefined && <Problem error={heat.error} what="the history heat map" />}
      {showHeat && heat.data?.durationsMissing && (
        <p class="notice" data-testid="not-available">
          Activity durations are not available on this server yet; the heat map shows counts only.
        </p>
      )}
      <Show data={xml} what="the diagram">
        {(x) => <BpmnDiagram xml={x.bpmn20Xml} decorations={decorations} label="Process diagram" />}
      </Show>
      <details class="card">
        <summary>Activities as a table</summary>
        <table class="table">
          <thead>
            <tr>
              <th scope="col">Activity</th>
              <th scope="col" class="num">Running</th>
              <th scope="col" class="num">Open incidents</th>
              {showHeat && <th scope="col" class="num">Ran</th>}
              {showHeat && <th scope="col" class="num">Average time</th>}
            </tr>
          </thead>
          <tbody>
            {[...names].map(([activityId, name]) => {
              const badge = badges.find((b) => b.activityId === activityId);
              const h = heat.data?.heat.find((x) => x.activityId === activityId);
              return (
                <tr key={activityId}>
                  <td>
                    {name} <code class="muted">{activityId}</code>
                  </td>
                  <td class="num">{badge?.running ?? 0}</td>
                  <td class="num">{badge?.incidents ?? 0}</td>
                  {showHeat && <td class="num">{h?.ran ?? 0}</td>}
                  {showHeat && <td class="num">{formatDuration(h?.avgMillis)}</td>}
                </tr>
              );
            })}
          </tbody>
        </table>
      </details>
      <section aria-labelledby="instances-heading">
        <h2 id="instances-heading">Instances of this version</h2>
        <Show data={instances} what="the instances">
          {([rows, count]) => (
            <>
              <InstanceTable rows={rows} />
              <Pager
                page={page}
                total={count.count}
                pageSize={PAGE_SIZE}
                hrefFor={(p) => hrefWith({ page: p > 1 ? String(p) : null })}
                label="Instances pages"
              />
            </>
          )}
        </Show>
      </section>
    </>
  );
}

export function InstanceTable({
  rows,
  showDefinition = false,
}: {
  rows: {
    id: string;
    businessKey: string | null;
    state: string;
    startTime: string | null;
    endTime: string | null;
    processDefinitionKey: string;
    processDefinitionVersion: number | null;
  }[];
  showDefinition?: boolean;
}) {
  if (rows.length === 0) return <p>No instances.</p>;
  return (
    <table class="table" data-testid="instances-table">
      <thead>
        <tr>
          <th scope="col">Instance</th>
          <th scope="col">Business key</th>
          {showDefinition && <th scope="col">Definition</th>}
          <th scope="col">State</th>
          <th scope="col">Started (UTC)</th>
          <th scope="col">Ended (UTC)</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((row) => (
          <tr key={row.id} data-testid={`instance-${row.id}`}>
            <td>
              <Link href={paths.instance(row.id)} title={row.id}>
                {shortId(row.id)}
              </Link>
            </td>
            <td>{row.businessKey ?? "—"}</td>
            {showDefinition && (
              <td>
                {row.processDefinitionKey} v{row.processDefinitionVersion ?? "?"}
              </td>
            )}
            <td>
              <span class={`chip state-${row.state.toLowerCase()}`}>{row.state.toLowerCase()}</span>
            </td>
            <td>{formatTime(row.startTime)}</td>
            <td>{formatTime(row.endTime)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
