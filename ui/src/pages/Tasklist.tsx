// The tasklist: my tasks, my groups' tasks, unassigned ones (or all, on a server without
// users), paged; and the processes that can be started from here.
import { api } from "../api";
import { Pager, Show, useData, useTitle } from "../components/common";
import { formatTime } from "../lib/format";
import { parsePage } from "../lib/instanceSearch";
import { paths } from "../lib/routes";
import { Link, useLocation } from "../router";
import { useSession } from "../session";
import { FILTERS, LABELS, taskQuery, type TaskFilter } from "../lib/taskFilters";

const PAGE_SIZE = 25;
export function Tasklist() {
  useTitle("Tasklist");
  const location = useLocation();
  const session = useSession();
  const user = session?.user ?? null;
  const groups = session?.groups ?? [];
  const asked = location.query.get("filter") as TaskFilter | null;
  const filter: TaskFilter = asked && FILTERS.includes(asked) ? asked : user ? "mine" : "all";
  const page = parsePage(location.query.get("page"));
  const query = taskQuery(filter, user, groups);
  const tasks = useData(
    () =>
      query === null
        ? Promise.resolve(null)
        : Promise.all([
            api.tasks({ ...query, sortBy: "created", sortOrder: "desc", firstResult: (page - 1) * PAGE_SIZE, maxResults: PAGE_SIZE }),
            api.taskCount(query),
          ]),
    [filter, page, user, groups.join(",")],
  );
  const startable = useData(
    () => api.definitions({ latestVersion: true, startableInTasklist: true, sortBy: "name", sortOrder: "asc" }),
    [],
  );
  const href = (f: TaskFilter, p = 1) => `/tasklist?filter=${f}${p > 1 ? `&page=${p}` : ""}`;

  return (
    <>
      <h1>Tasklist</h1>
      <nav aria-label="Task filters">
        <ul class="tabs">
          {FILTERS.map((f) => (
            <li key={f}>
              <Link href={href(f)} aria-current={f === filter ? "page" : undefined} data-testid={`filter-${f}`}>
                {LABELS[f]}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      <div class="columns" style={{ gridTemplateColumns: "minmax(0, 3fr) minmax(0, 1fr)" }}>
        <section aria-labelledby="tasks-heading">
          <h2 id="tasks-heading">{LABELS[filter]}</h2>
          <Show data={tasks} what="the tasks">
            {(found) =>
              found === null ? (
                <p>
                  {filter === "mine"
                    ? "Sign in to see the tasks assigned to you."
                    : "You are in no group: no group task to show."}
                </p>
              ) : found[0].length === 0 ? (
                <p>No task here.</p>
              ) : (
                <>
                  <table class="table" data-testid="tasks-table">
                    <thead>
                      <tr>
                        <th scope="col">Task</th>
                        <th scope="col">Assignee</th>
                        <th scope="col">Created (UTC)</th>
                        <th scope="col">Due (UTC)</th>
                        <th scope="col" class="num">Priority</th>
                      </tr>
                    </thead>
                    <tbody>
                      {found[0].map((t) => (
                        <tr key={t.id} data-testid={`task-${t.id}`}>
                          <td>
                            <Link href={paths.task(t.id)}>{t.name ?? t.taskDefinitionKey ?? t.id}</Link>
                          </td>
                          <td>{t.assignee ?? "—"}</td>
                          <td>{formatTime(t.created)}</td>
                          <td>{formatTime(t.due)}</td>
                          <td class="num">{t.priority ?? ""}</td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                  <Pager page={page} total={found[1].count} pageSize={PAGE_SIZE} hrefFor={(p) => href(filter, p)} label="Task pages" />
                </>
              )
            }
          </Show>
        </section>
        <section aria-labelledby="start-heading">
          <h2 id="start-heading">Start a process</h2>
          <Show data={startable} what="the processes">
            {(rows) =>
              rows.length === 0 ? (
                <p>No process can be started here.</p>
              ) : (
                <ul>
                  {rows.map((d) => (
                    <li key={d.id}>
                      <Link href={paths.start(d.id)} data-testid={`start-${d.key}`}>
                        {d.name ?? d.key}
                      </Link>
                    </li>
                  ))}
                </ul>
              )
            }
          </Show>
        </section>
      </div>
    </>
  );
}
