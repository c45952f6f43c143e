// The plan as the operator edits it: what runs unmapped, one row per instruction (target select,
// event trigger, the validation's failures, remove), mapping one more activity, and the
// validation's verdict.
import type { MigrationPlanReport } from "../../api/extensions";
import {
  activityLabel,
  hasEventTrigger,
  reportFails,
  sourceOf,
  targetOf,
  variableFailures,
  withEventTrigger,
  withTarget,
  withoutInstruction,
  type MigrationPlan,
  type Unmapped,
} from "../../lib/migration";

function ActivitySelect({
  id,
  label,
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
        {label}
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

export function UnmappedWarning({ unmapped, names }: { unmapped: Unmapped[]; names: Map<string, string> }) {
  if (unmapped.length === 0) return null;
  return (
    <div class="notice" role="status" data-testid="unmapped-warning">
      <strong>Instances run where no instruction leads:</strong>
      <ul>
        {unmapped.map((u) => (
          <li key={u.activityId} data-testid={`unmapped-${u.activityId}`}>
            {activityLabel(names, u.activityId)}: {u.instances} running. Such an instance cannot be migrated until the
            activity is mapped.
          </li>
        ))}
      </ul>
    </div>
  );
}

export function MappingTable({
  plan,
  setPlan,
  sourceNames,
  sourceKinds,
  targetNames,
  failures,
  validated,
  chosenSource,
}: {
  plan: MigrationPlan;
  setPlan: (plan: MigrationPlan) => void;
  sourceNames: Map<string, string>;
  sourceKinds: Map<string, string>;
  targetNames: Map<string, string>;
  /** source activity id → the validation's failures for its instruction */
  failures: Map<string, string[]>;
  /** the failures are of this very plan */
  validated: boolean;
  chosenSource: string;
}) {
  if (plan.instructions.length === 0) {
    return <p data-testid="no-instructions">The plan has no instruction: nothing in the two definitions matched.</p>;
  }
  return (
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
        {plan.instructions.map((one, n) => {
          const from = sourceOf(one);
          const name = sourceNames.get(from) ?? from;
          const failed = failures.get(from);
          return (
            <tr
              key={from}
              data-testid={`instruction-${from}`}
              class={[failed ? "failing" : "", from === chosenSource ? "selected" : ""].join(" ").trim() || undefined}
            >
              <td>{activityLabel(sourceNames, from)}</td>
              <td>
                <ActivitySelect
                  id={`target-of-${from}`}
                  label={`Target of ${name}`}
                  names={targetNames}
                  value={targetOf(one)}
                  onChange={(to) => setPlan(withTarget(plan, n, to))}
                  hidden
                />
              </td>
              <td>
                {hasEventTrigger(sourceKinds.get(from)) || one.updateEventTrigger ? (
                  <label class="check">
                    <input
                      type="checkbox"
                      checked={one.updateEventTrigger}
                      onChange={(e) => setPlan(withEventTrigger(plan, n, e.currentTarget.checked))}
                    />
                    <span class="visually-hidden">Update the event trigger of {name}</span>
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
                ) : validated ? (
                  <span class="chip chip-ok">valid</span>
                ) : (
                  <span class="muted">not validated</span>
                )}
              </td>
              <td>
                <button
                  type="button"
                  class="small"
                  onClick={() => setPlan(withoutInstruction(plan, n))}
                  aria-label={`Remove the instruction of ${name}`}
                >
                  Remove
                </button>
              </td>
            </tr>
          );
        })}
      </tbody>
    </table>
  );
}

/** Map one more source activity (or give a mapped one another target): the two selects follow
 * what is clicked on the diagrams. */
export function AddInstruction({
  sourceNames,
  targetNames,
  source,
  target,
  mapped,
  onSource,
  onTarget,
  onAdd,
}: {
  sourceNames: Map<string, string>;
  targetNames: Map<string, string>;
  source: string;
  target: string;
  /** the source has an instruction already */
  mapped: boolean;
  onSource: (activityId: string) => void;
  onTarget: (activityId: string) => void;
  onAdd: () => void;
}) {
  return (
    <div class="toolbar add-instruction" role="group" aria-label="Map an activity">
      <div class="field">
        <ActivitySelect id="add-source" label="Source activity" names={sourceNames} value={source} onChange={onSource} />
      </div>
      <span aria-hidden="true">→</span>
      <div class="field">
        <ActivitySelect id="add-target" label="Target activity" names={targetNames} value={target} onChange={onTarget} />
      </div>
      <button type="button" disabled={!source || !target} onClick={onAdd} data-testid="add-instruction">
        {mapped ? "Change its target" : "Add instruction"}
      </button>
    </div>
  );
}

export function ValidationSummary({ report, count }: { report: MigrationPlanReport; count: number }) {
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
