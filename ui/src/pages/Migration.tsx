// Migrating a definition's running instances to another definition, as Camunda's cockpit does:
// pick the target, generate the plan (Camunda's mapEqualActivities), edit it beside both
// diagrams, validate it, choose the instances and run it at once or as a batch.
import { useMemo, useState } from "preact/hooks";
import { api, type ProcessDefinition } from "../api";
import type { MigrationPlanReport } from "../api/extensions";
import { BpmnDiagram, type Decorations } from "../components/BpmnDiagram";
import { Show, useData, useTitle } from "../components/common";
import { badgeData } from "../lib/badges";
import { shortId } from "../lib/format";
import {
  executionBody,
  failuresBySource,
  hasEventTrigger,
  reportFails,
  sourceOf,
  targetOf,
  unmappedRunning,
  variableFailures,
  withEventTrigger,
  withMapping,
  withTarget,
  withoutInstruction,
  type MigrationPlan,
  type Selection,
} from "../lib/migration";
import { activityKinds, activityNames } from "../lib/model";
import { paths } from "../lib/routes";
import { Link, navigate, useLocation } from "../router";
import { MigrationRefusal } from "./migration/Refusal";
import { InstancePicker } from "./migration/InstancePicker";

const LISTED = 100;

function label(d: ProcessDefinition): string {
  return `${d.name || d.key} v${d.version}${d.versionTag ? ` (${d.versionTag})` : ""}`;
}

function nameOf(names: Map<string, string>, id: string): string {
  const name = names.get(id);
  return name && name !== id ? `${name} (${id})` : id;
}

/** The target select: versions of the source's key first (newest first), then every other. */
function TargetChooser({
  source,
  definitions,
  value,
  onChange,
}: {
  source: ProcessDefinition;
  definitions: ProcessDefinition[];
  value: string;
  onChange: (id: string) => void;
}) {
  const versions = definitions
    .filter((d) => d.key === source.key && d.id !== source.id)
    .sort((a, b) => b.version - a.version);
  const others = definitions
    .filter((d) => d.key !== source.key)
    .sort((a, b) => a.key.localeCompare(b.key) || b.version - a.version);
  return (
    <div class="field">
      <label for="migration-target">Target definition</label>
      <select id="migration-target" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">choose…</option>
        <optgroup label={`Other versions of ${source.key}`}>
          {versions.map((d) => (
            <option key={d.id} value={d.id}>
              {label(d)}
            </option>
          ))}
        </optgroup>
        {others.length > 0 && (
          <optgroup label="Other definitions">
            {others.map((d) => (
              <option key={d.id} value={d.id}>
                {label(d)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </div>
  );
}

function ActivitySelect({
  id,
  label: text,
  names,
  value,
  onChange,
  hidden = false,
}: {
  id: string;
  label: string;
  names: Map<string, string>;
  value: string;
  onChange: (activityId: string) => void;
  hidden?: boolean;
}) {
  const known = value === "" || names.has(value);
  return (
    <>
      <label for={id} class={hidden ? "visually-hidden" : undefined}>
        {text}
      </label>
      <select id={id} value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        {value === "" && <option value="">choose…</option>}
        {!known && <option value={value}>{value} (not in the definition)</option>}
        {[...names].map(([activityId, name]) => (
          <option key={activityId} value={activityId}>
            {name === activityId ? name : `${name} (${activityId})`}
          </option>
        ))}
      </select>
    </>
  );
}

interface Validation {
  plan: MigrationPlan;
  report: MigrationPlanReport;
}

export function Migration({ id }: { id: string }) {
  const location = useLocation();
  const target = location.query.get("target") ?? "";
  const source = useData(() => api.definition(id), [id]);
  useTitle(source.data ? `Migrate ${label(source.data)}` : "Migrate");
  const definitions = useData(() => api.definitions({ sortBy: "key", sortOrder: "asc", maxResults: 1000 }), []);
  const sourceXml = useData(() => api.definitionXml(id), [id]);
  const targetXml = useData(() => (target ? api.definitionXml(target) : Promise.resolve(null)), [target]);
  const [tick, setTick] = useState(0);
  const statistics = useData(() => api.activityStatistics(id), [id, tick]);

  const [updateEventTriggers, setUpdateEventTriggers] = useState(false);
  const [plan, setPlanState] = useState<MigrationPlan | null>(null);
  const [generating, setGenerating] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const [validation, setValidation] = useState<Validation | null>(null);
  const [validating, setValidating] = useState(false);
  const [addSource, setAddSource] = useState("");
  const [addTarget, setAddTarget] = useState("");

  const sourceNames = useMemo(
    () => (sourceXml.data ? activityNames(sourceXml.data.bpmn20Xml) : new Map<string, string>()),
    [sourceXml.data],
  );
  const sourceKinds = useMemo(
    () => (sourceXml.data ? activityKinds(sourceXml.data.bpmn20Xml) : new Map<string, string>()),
    [sourceXml.data],
  );
  const targetNames = useMemo(
    () => (targetXml.data ? activityNames(targetXml.data.bpmn20Xml) : new Map<string, string>()),
    [targetXml.data],
  );
  const targetDefinition = definitions.data?.find((d) => d.id === target) ?? null;
  const planFor = plan && plan.targetProcessDefinitionId === target ? plan : null;
  const report = validation && validation.plan === planFor ? validation.report : null;
  const failures = useMemo(() => failuresBySource(report), [report]);
  const unmapped = useMemo(() => unmappedRunning(planFor, statistics.data ?? []), [planFor, statistics.data]);
  const running = (statistics.data ?? []).reduce((sum, row) => sum + row.instances, 0);
  const firstUnmapped = unmapped[0]?.activityId ?? "";
  const chosenSource = addSource || firstUnmapped;
  const chosenInstruction = planFor?.instructions.find((i) => sourceOf(i) === chosenSource) ?? null;
  const chosenTarget = addTarget || (chosenInstruction ? targetOf(chosenInstruction) : "");

  const setPlan = (next: MigrationPlan) => {
    setPlanState(next);
    setProblem(null);
  };

  const chooseTarget = (next: string) => {
    setPlanState(null);
    setValidation(null);
    setProblem(null);
    setAddSource("");
    setAddTarget("");
    navigate(paths.migration(id, next || null), { replace: true });
  };

  const generate = async () => {
    if (!target) return;
    setGenerating(true);
    setProblem(null);
    setValidation(null);
    try {
      setPlanState(
        await api.generateMigration({
          sourceProcessDefinitionId: id,
          targetProcessDefinitionId: target,
          updateEventTriggers,
        }),
      );
      setAddSource("");
      setAddTarget("");
    } catch (error) {
      setProblem(error);
    } finally {
      setGenerating(false);
    }
  };

  const validate = async () => {
    if (!planFor) return;
    setValidating(true);
    setProblem(null);
    try {
      setValidation({ plan: planFor, report: await api.validateMigration(planFor) });
    } catch (error) {
      setProblem(error);
    } finally {
      setValidating(false);
    }
  };

  const sourceDecorations: Decorations = useMemo(() => {
    const labels = new Map<string, { text: string; title: string }>();
    for (const one of planFor?.instructions ?? []) {
      const to = targetOf(one);
      if (to !== sourceOf(one)) labels.set(sourceOf(one), { text: `→ ${to}`, title: `migrates to ${nameOf(targetNames, to)}` });
    }
    return {
      badges: badgeData(statistics.data ?? []),
      warnings: new Map(
        unmapped.map((u) => [u.activityId, `${u.instances} running here and no instruction maps this activity`]),
      ),
      labels,
      selected: chosenSource || null,
    };
  }, [statistics.data, unmapped, planFor, targetNames, chosenSource]);
  const targetDecorations: Decorations = useMemo(() => {
    const labels = new Map<string, { text: string; title: string }>();
    for (const one of planFor?.instructions ?? []) {
      const from = sourceOf(one);
      if (from !== targetOf(one)) labels.set(targetOf(one), { text: `← ${from}`, title: `from ${nameOf(sourceNames, from)}` });
    }
    return { labels, selected: chosenTarget || null };
  }, [planFor, sourceNames, chosenTarget]);

  const mapped = chosenInstruction !== null;

  return (
    <>
      <Show data={source} what="the definition">
        {(d) => (
          <div class="page-head">
            <h1>
              Migrate instances of {d.name || d.key} <span class="muted">v{d.version}</span>
            </h1>
            <div class="toolbar">
              <Link href={paths.definition(d.id)}>Back to the definition</Link>
              <span class="muted" data-testid="source-running">
                {statistics.data === undefined ? "" : `${running} running activity instance${running === 1 ? "" : "s"}`}
              </span>
            </div>
          </div>
        )}
      </Show>

      <section class="card" aria-labelledby="migration-target-heading">
        <h2 id="migration-target-heading">1. Target and plan</h2>
        <Show data={definitions} what="the definitions">
          {(all) =>
            source.data && (
              <div class="toolbar migration-target">
                <TargetChooser source={source.data} definitions={all} value={target} onChange={chooseTarget} />
                <label class="check">
                  <input
                    type="checkbox"
                    checked={updateEventTriggers}
                    onChange={(e) => setUpdateEventTriggers(e.currentTarget.checked)}
                  />
                  Update event triggers (timers, messages) of the mapped events
                </label>
                <button
                  type="button"
                  class="primary"
                  disabled={!target || generating}
                  onClick={generate}
                  data-testid="generate-plan"
                >
                  {generating ? "Generating…" : planFor ? "Generate again" : "Generate plan"}
                </button>
              </div>
            )
          }
        </Show>
        {problem !== null && <MigrationRefusal error={problem} sourceNames={sourceNames} targetNames={targetNames} />}
      </section>

      {target && (
        <div class="columns migration-diagrams" data-testid="migration-diagrams">
          <div>
            <h2 class="diagram-heading">Source: {source.data ? label(source.data) : id}</h2>
            <Show data={sourceXml} what="the source diagram">
              {(x) => (
                <BpmnDiagram
                  xml={x.bpmn20Xml}
                  decorations={sourceDecorations}
                  label="Source diagram"
                  onSelect={(activityId) => {
                    setAddSource(activityId);
                    setAddTarget("");
                  }}
                />
              )}
            </Show>
          </div>
          <div>
            <h2 class="diagram-heading">Target: {targetDefinition ? label(targetDefinition) : target}</h2>
            <Show data={targetXml} what="the target diagram">
              {(x) => x && <BpmnDiagram xml={x.bpmn20Xml} decorations={targetDecorations} label="Target diagram" onSelect={setAddTarget} />}
            </Show>
          </div>
        </div>
      )}

      {planFor && (
        <section class="card" aria-labelledby="migration-plan-heading" data-testid="migration-plan">
          <h2 id="migration-plan-heading">2. Mapping</h2>
          <p class="muted">
            Each instruction moves what runs at a source activity to a target activity. Click an activity on the source
            diagram, then one on the target diagram, to map it; or change a target below.
          </p>
          {unmapped.length > 0 && (
            <div class="notice" role="status" data-testid="unmapped-warning">
              <strong>Instances run where no instruction leads:</strong>
              <ul>
                {unmapped.map((u) => (
                  <li key={u.activityId} data-testid={`unmapped-${u.activityId}`}>
                    {nameOf(sourceNames, u.activityId)}: {u.instances} running. Such an instance cannot be migrated until
                    the activity is mapped.
                  </li>
                ))}
              </ul>
            </div>
          )}
          {planFor.instructions.length === 0 ? (
            <p data-testid="no-instructions">The plan has no instruction: nothing in the two definitions matched.</p>
          ) : (
            <table class="table mapping" data-testid="mapping-table">
              <thead>
                <tr>
                  <th scope="col">Source activity</th>
                  <th scope="col">Target activity</th>
                  <th scope="col">Update event trigger</th>
                  <th scope="col">Validation</th>
                  <th scope="col">
                    <span class="visually-hidden">Remove</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {planFor.instructions.map((one, n) => {
                  const from = sourceOf(one);
                  const failed = failures.get(from);
                  return (
                    <tr
                      key={from}
                      data-testid={`instruction-${from}`}
                      class={[failed ? "failing" : "", from === chosenSource ? "selected" : ""].join(" ").trim()}
                    >
                      <td>{nameOf(sourceNames, from)}</td>
                      <td>
                        <ActivitySelect
                          id={`target-of-${from}`}
                          label={`Target of ${sourceNames.get(from) ?? from}`}
                          names={targetNames}
                          value={targetOf(one)}
                          onChange={(to) => setPlan(withTarget(planFor, n, to))}
                          hidden
                        />
                      </td>
                      <td>
                        {hasEventTrigger(sourceKinds.get(from)) || one.updateEventTrigger ? (
                          <label class="check">
                            <input
                              type="checkbox"
                              checked={one.updateEventTrigger}
                              onChange={(e) => setPlan(withEventTrigger(planFor, n, e.currentTarget.checked))}
                            />
                            <span class="visually-hidden">Update the event trigger of {sourceNames.get(from) ?? from}</span>
                          </label>
                        ) : (
                          <span class="muted" title="Only an event that waits for a trigger has one to update">
                            —
                          </span>
                        )}
                      </td>
                      <td data-testid={`failures-${from}`}>
                        {failed ? (
                          <ul class="failures">
                            {failed.map((text) => (
                              <li key={text}>{text}</li>
                            ))}
                          </ul>
                        ) : report ? (
                          <span class="chip chip-ok">valid</span>
                        ) : (
                          <span class="muted">not validated</span>
                        )}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="small"
                          onClick={() => setPlan(withoutInstruction(planFor, n))}
                          aria-label={`Remove the instruction of ${sourceNames.get(from) ?? from}`}
                        >
                          Remove
                        </button>
                      </td>
                    </tr>
                  );
                })}
              </tbody>
            </table>
          )}
          <div class="toolbar add-instruction" role="group" aria-label="Map an activity">
            <div class="field">
              <ActivitySelect
                id="add-source"
                label="Source activity"
                names={sourceNames}
                value={chosenSource}
                onChange={(value) => {
                  setAddSource(value);
                  setAddTarget("");
                }}
              />
            </div>
            <span aria-hidden="true">→</span>
            <div class="field">
              <ActivitySelect
                id="add-target"
                label="Target activity"
                names={targetNames}
                value={chosenTarget}
                onChange={setAddTarget}
              />
            </div>
            <button
              type="button"
              disabled={!chosenSource || !chosenTarget}
              onClick={() => {
                setPlan(withMapping(planFor, chosenSource, chosenTarget));
                setAddSource("");
                setAddTarget("");
              }}
              data-testid="add-instruction"
            >
              {mapped ? "Change its target" : "Add instruction"}
            </button>
          </div>

          <h2 id="migration-validate-heading">3. Validate</h2>
          <div class="toolbar">
            <button type="button" onClick={validate} disabled={validating} data-testid="validate-plan">
              {validating ? "Validating…" : "Validate the plan"}
            </button>
            {validation && !report && <span class="muted">The plan changed since it was validated.</span>}
          </div>
          {report && <ValidationSummary report={report} count={failures.size} />}
        </section>
      )}

      {planFor && source.data && (
        <RunSection
          plan={planFor}
          source={source.data}
          target={targetDefinition}
          unmapped={unmapped.length}
          sourceNames={sourceNames}
          targetNames={targetNames}
          onMigrated={() => setTick((t) => t + 1)}
          tick={tick}
        />
      )}
    </>
  );
}

function ValidationSummary({ report, count }: { report: MigrationPlanReport; count: number }) {
  const variables = variableFailures(report);
  if (!reportFails(report)) {
    return (
      <p class="flash" role="status" data-testid="validation-ok">
        The plan is valid: no instruction fails.
      </p>
    );
  }
  return (
    <div class="error" role="alert" data-testid="validation-failed">
      {count > 0 && (
        <p>
          {count} instruction{count === 1 ? " fails" : "s fail"}: see beside {count === 1 ? "it" : "each"} in the mapping.
        </p>
      )}
      {variables.length > 0 && (
        <ul>
          {variables.map(([name, texts]) => (
            <li key={name} data-testid={`variable-failures-${name}`}>
              Variable <code>{name}</code>: {texts.join("; ")}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}

function RunSection({
  plan,
  source,
  target,
  unmapped,
  sourceNames,
  targetNames,
  onMigrated,
  tick,
}: {
  plan: MigrationPlan;
  source: ProcessDefinition;
  target: ProcessDefinition | null;
  unmapped: number;
  sourceNames: Map<string, string>;
  targetNames: Map<string, string>;
  onMigrated: () => void;
  tick: number;
}) {
  const [all, setAll] = useState(true);
  const [picked, setPicked] = useState<Set<string>>(new Set());
  const [skipCustomListeners, setSkipCustomListeners] = useState(false);
  const [skipIoMappings, setSkipIoMappings] = useState(false);
  const [sending, setSending] = useState<"now" | "batch" | null>(null);
  const [problem, setProblem] = useState<unknown>(null);
  const [done, setDone] = useState<string | null>(null);
  const instances = useData(
    () =>
      Promise.all([
        api.runningInstances({ processDefinitionId: source.id, maxResults: LISTED }),
        api.runningInstanceCount({ processDefinitionId: source.id }),
      ]),
    [source.id, tick],
  );
  const total = instances.data?.[1].count ?? 0;
  const selection: Selection = all ? { all: true } : { all: false, ids: [...picked] };
  const empty = all ? total === 0 : picked.size === 0;

  const run = async (how: "now" | "batch") => {
    setSending(how);
    setProblem(null);
    setDone(null);
    const body = executionBody(plan, selection, { skipCustomListeners, skipIoMappings });
    try {
      if (how === "batch") {
        const batch = await api.executeMigrationAsync(body);
        navigate(paths.batches(batch.id));
        return;
      }
      await api.executeMigration(body);
      const count = all ? total : picked.size;
      setPicked(new Set());
      setDone(`Migrated ${count} instance${count === 1 ? "" : "s"} to ${target ? label(target) : plan.targetProcessDefinitionId}.`);
      onMigrated();
    } catch (error) {
      setProblem(error);
    } finally {
      setSending(null);
    }
  };

  return (
    <section class="card" aria-labelledby="migration-run-heading" data-testid="migration-run">
      <h2 id="migration-run-heading">4. Instances and run</h2>
      <fieldset class="plain">
        <legend class="visually-hidden">Instances to migrate</legend>
        <label class="check">
          <input type="radio" name="migration-instances" checked={all} onChange={() => setAll(true)} />
          All running instances of {label(source)} ({instances.data === undefined ? "…" : total})
        </label>
        <label class="check">
          <input type="radio" name="migration-instances" checked={!all} onChange={() => setAll(false)} />
          Only the instances I pick below
        </label>
      </fieldset>
      {!all && (
        <Show data={instances} what="the running instances">
          {([rows, count]) => (
            <InstancePicker rows={rows} total={count.count} listed={LISTED} picked={picked} setPicked={setPicked} />
          )}
        </Show>
      )}
      <div class="toolbar">
        <label class="check">
          <input
            type="checkbox"
            checked={skipCustomListeners}
            onChange={(e) => setSkipCustomListeners(e.currentTarget.checked)}
          />
          Skip custom listeners
        </label>
        <label class="check">
          <input type="checkbox" checked={skipIoMappings} onChange={(e) => setSkipIoMappings(e.currentTarget.checked)} />
          Skip IO mappings
        </label>
      </div>
      {unmapped > 0 && (
        <p class="notice">
          Instances that run at an unmapped activity will be refused (at once: the whole migration; in a batch: their
          jobs fail).
        </p>
      )}
      {problem !== null && <MigrationRefusal error={problem} sourceNames={sourceNames} targetNames={targetNames} />}
      {done && (
        <p class="flash" role="status" data-testid="migrated">
          {done}{" "}
          {target && <Link href={paths.definition(target.id)}>Open {label(target)}</Link>}
        </p>
      )}
      <div class="toolbar">
        <button
          type="button"
          class="primary"
          disabled={empty || sending !== null}
          onClick={() => run("batch")}
          data-testid="migrate-batch"
        >
          {sending === "batch" ? "Starting the batch…" : "Run as batch"}
        </button>
        <button type="button" disabled={empty || sending !== null} onClick={() => run("now")} data-testid="migrate-now">
          {sending === "now" ? "Migrating…" : "Migrate now"}
        </button>
        <span class="muted">
          {all
            ? `${total} instance${total === 1 ? "" : "s"}`
            : `${picked.size} picked`}
          {" "}→ {target ? label(target) : shortId(plan.targetProcessDefinitionId)}
        </span>
      </div>
    </section>
  );
}
