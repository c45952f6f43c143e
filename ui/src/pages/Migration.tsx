// Migrating a definition's running instances to another definition, as Camunda's cockpit does:
// pick the target, generate the plan (Camunda's mapEqualActivities), edit it beside both
// diagrams, validate it, choose the instances and run it at once or as a batch. The page holds
// the plan being edited; its parts live in ./migration/.
import { useMemo, useState } from "preact/hooks";
import { api } from "../api";
import type { MigrationPlanReport } from "../api/extensions";
import { BpmnDiagram, type Decorations } from "../components/BpmnDiagram";
import { Show, useData, useTitle } from "../components/common";
import { badgeData } from "../lib/badges";
import {
  activityLabel,
  definitionLabel,
  failuresBySource,
  sourceOf,
  targetOf,
  unmappedRunning,
  withMapping,
  type MigrationPlan,
} from "../lib/migration";
import { activityKinds, activityNames } from "../lib/model";
import { paths } from "../lib/routes";
import { Link, navigate, useLocation } from "../router";
import { AddInstruction, MappingTable, UnmappedWarning, ValidationSummary } from "./migration/Mapping";
import { MigrationRefusal } from "./migration/Refusal";
import { RunPanel } from "./migration/RunPanel";
import { TargetChooser } from "./migration/TargetChooser";

interface Validation {
  plan: MigrationPlan;
  report: MigrationPlanReport;
}

export function Migration({ id }: { id: string }) {
  const location = useLocation();
  const target = location.query.get("target") ?? "";
  const source = useData(() => api.definition(id), [id]);
  useTitle(source.data ? `Migrate ${definitionLabel(source.data)}` : "Migrate");
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
      if (to !== sourceOf(one)) labels.set(sourceOf(one), { text: `→ ${to}`, title: `migrates to ${activityLabel(targetNames, to)}` });
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
      if (from !== targetOf(one)) labels.set(targetOf(one), { text: `← ${from}`, title: `from ${activityLabel(sourceNames, from)}` });
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
            <h2 class="diagram-heading">Source: {source.data ? definitionLabel(source.data) : id}</h2>
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
            <h2 class="diagram-heading">Target: {targetDefinition ? definitionLabel(targetDefinition) : target}</h2>
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
          <UnmappedWarning unmapped={unmapped} names={sourceNames} />
          <MappingTable
            plan={planFor}
            setPlan={setPlan}
            sourceNames={sourceNames}
            sourceKinds={sourceKinds}
            targetNames={targetNames}
            failures={failures}
            validated={report !== null}
            chosenSource={chosenSource}
          />
          <AddInstruction
            sourceNames={sourceNames}
            targetNames={targetNames}
            source={chosenSource}
            target={chosenTarget}
            mapped={mapped}
            onSource={(value) => {
              setAddSource(value);
              setAddTarget("");
            }}
            onTarget={setAddTarget}
            onAdd={() => {
              setPlan(withMapping(planFor, chosenSource, chosenTarget));
              setAddSource("");
              setAddTarget("");
            }}
          />

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
        <RunPanel
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
