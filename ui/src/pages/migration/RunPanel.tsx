// Running the plan: every running instance of the source (Camunda's processInstanceQuery) or
// the ones picked, the skip options, at once (a refusal shown whole) or as a batch (the page
// then follows the batch on the Batches page).
import { useState } from "preact/hooks";
import { api, type ProcessDefinition } from "../../api";
import { Show, useData } from "../../components/common";
import { shortId } from "../../lib/format";
import { definitionLabel, executionBody, type MigrationPlan, type Selection } from "../../lib/migration";
import { paths } from "../../lib/routes";
import { Link, navigate } from "../../router";
import { InstancePicker } from "./InstancePicker";
import { MigrationRefusal } from "./Refusal";

const LISTED = 100;

export function RunPanel({
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
      setDone(`Migrated ${count} instance${count === 1 ? "" : "s"} to ${target ? definitionLabel(target) : plan.targetProcessDefinitionId}.`);
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
          All running instances of {definitionLabel(source)} ({instances.data === undefined ? "…" : total})
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
          {target && <Link href={paths.definition(target.id)}>Open {definitionLabel(target)}</Link>}
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
          {" "}→ {target ? definitionLabel(target) : shortId(plan.targetProcessDefinitionId)}
        </span>
      </div>
    </section>
  );
}
