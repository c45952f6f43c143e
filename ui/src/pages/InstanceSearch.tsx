// Instance search: the filters live in the URL (a search can be shared as a link), the results
// come from Camunda's history query, paged with firstResult/maxResults and a count call.
import { useEffect, useState } from "preact/hooks";
import { api } from "../api";
import { Pager, Show, useData, useTitle } from "../components/common";
import {
  OPERATORS,
  PAGE_SIZE,
  STATES,
  filterProblems,
  filtersToSearch,
  formatVariableFilter,
  historyFilterQuery,
  historyPageQuery,
  parseFilters,
  parseVariableFilter,
  type InstanceFilters,
  type Operator,
} from "../lib/instanceSearch";
import { navigate, useLocation } from "../router";
import { InstanceTable } from "./Definition";

const HERE = "/cockpit/instances";

export function InstanceSearch() {
  useTitle("Instances");
  const location = useLocation();
  const filters = parseFilters(location.query);
  const search = filtersToSearch(filters);
  const problems = filterProblems(filters);
  const [draft, setDraft] = useState<InstanceFilters>(filters);
  const parsedVariable = parseVariableFilter(draft.variable);
  const [varName, setVarName] = useState(parsedVariable?.name ?? "");
  const [varOp, setVarOp] = useState<Operator>(parsedVariable?.operator ?? "eq");
  const [varValue, setVarValue] = useState(parsedVariable?.value ?? "");
  useEffect(() => {
    setDraft(filters);
    const v = parseVariableFilter(filters.variable);
    setVarName(v?.name ?? "");
    setVarOp(v?.operator ?? "eq");
    setVarValue(v?.value ?? "");
  }, [search]);

  const keys = useData(() => api.definitions({ latestVersion: true, sortBy: "key", sortOrder: "asc" }), []);
  const results = useData(
    () =>
      problems.length
        ? Promise.resolve(null)
        : Promise.all([
            api.historicInstances(historyPageQuery(filters)),
            api.historicInstanceCount(historyFilterQuery(filters)),
          ]),
    [search],
  );

  const set = (name: keyof InstanceFilters) => (event: Event) =>
    setDraft({ ...draft, [name]: (event.currentTarget as HTMLInputElement).value });

  const submit = (event: Event) => {
    event.preventDefault();
    const variable = formatVariableFilter({ name: varName.trim(), operator: varOp, value: varValue });
    navigate(HERE + filtersToSearch({ ...draft, variable, page: 1 }));
  };

  return (
    <>
      <h1>Instances</h1>
      <form class="card" onSubmit={submit} role="search" aria-label="Instance filters">
        <div class="filters">
          <div>
            <label for="f-businessKey">Business key</label>
            <input id="f-businessKey" value={draft.businessKey} onInput={set("businessKey")} />
          </div>
          <div>
            <label for="f-state">State</label>
            <select id="f-state" value={draft.state} onChange={set("state")}>
              <option value="">any</option>
              {STATES.map((s) => (
                <option key={s} value={s}>
                  {s}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-definitionKey">Definition key</label>
            <input
              id="f-definitionKey"
              list="definition-keys"
              value={draft.definitionKey}
              onInput={set("definitionKey")}
            />
            <datalist id="definition-keys">
              {(keys.data ?? []).map((d) => (
                <option key={d.key} value={d.key}>
                  {d.name ?? d.key}
                </option>
              ))}
            </datalist>
          </div>
          <div>
            <label for="f-varName">Variable name</label>
            <input id="f-varName" value={varName} onInput={(e) => setVarName(e.currentTarget.value)} />
          </div>
          <div>
            <label for="f-varOp">Comparison</label>
            <select id="f-varOp" value={varOp} onChange={(e) => setVarOp(e.currentTarget.value as Operator)}>
              {OPERATORS.map((op) => (
                <option key={op} value={op}>
                  {op}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label for="f-varValue">Variable value</label>
            <input id="f-varValue" value={varValue} onInput={(e) => setVarValue(e.currentTarget.value)} />
          </div>
          <div>
            <label for="f-startedAfter">Started after (UTC)</label>
            <input id="f-startedAfter" type="datetime-local" value={draft.startedAfter} onInput={set("startedAfter")} />
          </div>
          <div>
            <label for="f-startedBefore">Started before (UTC)</label>
            <input
              id="f-startedBefore"
              type="datetime-local"
              value={draft.startedBefore}
              onInput={set("startedBefore")}
            />
          </div>
          <div>
            <label for="f-endedAfter">Ended after (UTC)</label>
            <input id="f-endedAfter" type="datetime-local" value={draft.endedAfter} onInput={set("endedAfter")} />
          </div>
          <div>
            <label for="f-endedBefore">Ended before (UTC)</label>
            <input id="f-endedBefore" type="datetime-local" value={draft.endedBefore} onInput={set("endedBefore")} />
          </div>
        </div>
        <div class="toolbar">
          <button type="submit" class="primary">
            Search
          </button>
          <button type="button" onClick={() => navigate(HERE)}>
            Clear
          </button>
        </div>
      </form>
      {problems.length > 0 && (
        <ul class="error" role="alert">
          {problems.map((p) => (
            <li key={p}>{p}</li>
          ))}
        </ul>
      )}
      <section aria-labelledby="results-heading">
        <h2 id="results-heading">Results</h2>
        <Show data={results} what="the instances">
          {(found) =>
            found && (
              <>
                <InstanceTable rows={found[0]} showDefinition />
                <Pager
                  page={filters.page}
                  total={found[1].count}
                  pageSize={PAGE_SIZE}
                  hrefFor={(page) => HERE + filtersToSearch({ ...filters, page })}
                  label="Result pages"
                />
              </>
            )
          }
        </Show>
      </section>
    </>
  );
}
