// A decision: its table (dmn-js viewer) and its evaluations from the decision history, each with
// its inputs, the rules it matched and their outputs; choosing one highlights its rules.
import { useState } from "preact/hooks";
import { api } from "../api";
import { DmnTable } from "../components/DmnTable";
import { Pager, Show, useData, useTitle } from "../components/common";
import { inputsOf, matchedRules } from "../lib/evaluations";
import { formatTime, formatValue, shortId } from "../lib/format";
import { parsePage } from "../lib/instanceSearch";
import { paths } from "../lib/routes";
import { Link, useLocation } from "../router";

const PAGE_SIZE = 20;

export function Decision({ id }: { id: string }) {
  const location = useLocation();
  const page = parsePage(location.query.get("page"));
  const decision = useData(() => api.decision(id), [id]);
  useTitle(decision.data ? `Decision ${decision.data.name ?? decision.data.key}` : "Decision");
  const xml = useData(() => api.decisionXml(id), [id]);
  const versions = useData(
    () =>
      decision.data
        ? api.decisions({ key: decision.data.key, sortBy: "version", sortOrder: "desc" })
        : Promise.resolve([]),
    [decision.data?.key],
  );
  const evaluations = useData(
    () =>
      Promise.all([
        api.decisionInstances({ decisionDefinitionId: id, firstResult: (page - 1) * PAGE_SIZE, maxResults: PAGE_SIZE }),
        api.decisionInstanceCount({ decisionDefinitionId: id }),
      ]),
    [id, page],
  );
  const [selected, setSelected] = useState<string | null>(null);
  const chosen = evaluations.data?.[0].find((e) => e.id === selected);
  const matched = chosen ? matchedRules(chosen).map((r) => r.ruleId) : [];

  return (
    <Show data={decision} what="the decision">
      {(d) => (
        <>
          <div class="page-head">
            <h1>
              {d.name ?? d.key} <span class="muted">v{d.version}</span>
            </h1>
            {(versions.data ?? []).length > 1 && (
              <nav aria-label="Versions">
                <ul class="inline-list">
                  {versions.data!.map((v) => (
                    <li key={v.id}>
                      <Link href={paths.decision(v.id)} aria-current={v.id === id ? "page" : undefined}>
                        v{v.version}
                      </Link>
                    </li>
                  ))}
                </ul>
              </nav>
            )}
          </div>
          <Show data={xml} what="the decision table">
            {(x) => <DmnTable xml={x.dmnXml} decisionKey={d.key} matched={matched} />}
          </Show>
          <section aria-labelledby="evaluations-heading">
            <h2 id="evaluations-heading">Evaluations</h2>
            <Show data={evaluations} what="the evaluations">
              {([rows, count]) =>
                rows.length === 0 ? (
                  <p>Not evaluated yet.</p>
                ) : (
                  <>
                    <table class="table" data-testid="evaluations-table">
                      <thead>
                        <tr>
                          <th scope="col">Time (UTC)</th>
                          <th scope="col">Inputs</th>
                          <th scope="col">Matched rules</th>
                          <th scope="col">Outputs</th>
                          <th scope="col">Process instance</th>
                          <th scope="col">
                            <span class="visually-hidden">Actions</span>
                          </th>
                        </tr>
                      </thead>
                      <tbody>
                        {rows.map((e) => {
                          const rules = matchedRules(e);
                          return (
                            <tr key={e.id} data-testid={`evaluation-${e.id}`} class={e.id === selected ? "selected" : undefined}>
                              <td>{formatTime(e.evaluationTime)}</td>
                              <td>
                                {inputsOf(e).map((i) => (
                                  <div key={i.name}>
                                    {i.name}: <code>{formatValue(i.value)}</code>
                                  </div>
                                ))}
                              </td>
                              <td>{rules.map((r) => r.ruleId).join(", ") || "none"}</td>
                              <td>
                                {rules.flatMap((r) =>
                                  r.outputs.map((o) => (
                                    <div key={`${r.ruleId}/${o.name}`}>
                                      {o.name} = <code>{formatValue(o.value)}</code>
                                    </div>
                                  )),
                                )}
                              </td>
                              <td>
                                {e.processInstanceId ? (
                                  <Link href={paths.instance(e.processInstanceId)}>{shortId(e.processInstanceId)}</Link>
                                ) : (
                                  "—"
                                )}
                              </td>
                              <td>
                                <button
                                  type="button"
                                  class="small"
                                  aria-pressed={e.id === selected}
                                  onClick={() => setSelected(e.id === selected ? null : e.id)}
                                >
                                  Show rules <span class="visually-hidden">of evaluation {formatTime(e.evaluationTime)}</span>
                                </button>
                              </td>
                            </tr>
                          );
                        })}
                      </tbody>
                    </table>
                    <Pager
                      page={page}
                      total={count.count}
                      pageSize={PAGE_SIZE}
                      hrefFor={(p) => `${paths.decision(id)}${p > 1 ? `?page=${p}` : ""}`}
                      label="Evaluation pages"
                    />
                  </>
                )
              }
            </Show>
          </section>
        </>
      )}
    </Show>
  );
}
