// A diff between two positions of an instance (GET .../diff), grouped the way a reader asks:
// which variables were added, changed or removed, which tokens moved, which tasks came and went.
import type { Change, InstanceDiff } from "../api/extensions";

export interface VariableChange {
  scope: string;
  name: string;
  before?: unknown;
  after?: unknown;
  type?: string;
}

export interface TokenMove {
  activityId: string;
  activityName: string | null;
}

export interface TaskChange {
  id: string;
  name: string | null;
  taskDefinitionKey: string | null;
}

export interface DiffSummary {
  from: number;
  to: number;
  instance: { field: string; before: unknown; after: unknown }[];
  variables: {
    added: VariableChange[];
    changed: VariableChange[];
    removed: VariableChange[];
    /** present at `from`, gone at `to` only because the instance ended in between */
    keptAtEnd: VariableChange[];
  };
  tokens: { left: TokenMove[]; entered: TokenMove[] };
  tasks: { came: TaskChange[]; went: TaskChange[] };
  other: Change[];
  empty: boolean;
}

const str = (value: unknown): string | null => (typeof value === "string" ? value : null);

/** `process instance/amount` → scope and name; a scope never holds a slash, a name may. */
export function splitVariableKey(key: string): { scope: string; name: string } {
  const slash = key.indexOf("/");
  return slash < 0 ? { scope: "", name: key } : { scope: key.slice(0, slash), name: key.slice(slash + 1) };
}

function endedBetween(changes: Change[]): boolean {
  const instance = changes.find((c) => c.section === "instance");
  if (!instance) return false;
  const before = instance.before ?? {};
  const after = instance.after ?? {};
  return (
    ("endTime" in after && after.endTime !== null && !before.endTime) ||
    ("status" in after && after.status !== "ACTIVE" && before.status === "ACTIVE")
  );
}

function token(item: Record<string, unknown> | null): TokenMove {
  return { activityId: str(item?.activityId) ?? "?", activityName: str(item?.activityName) };
}

function task(item: Record<string, unknown> | null, key: string): TaskChange {
  return {
    id: str(item?.id) ?? key,
    name: str(item?.name),
    taskDefinitionKey: str(item?.taskDefinitionKey),
  };
}

export function summarizeDiff(diff: InstanceDiff): DiffSummary {
  const ended = endedBetween(diff.changes);
  const summary: DiffSummary = {
    from: diff.from.position,
    to: diff.to.position,
    instance: [],
    variables: { added: [], changed: [], removed: [], keptAtEnd: [] },
    tokens: { left: [], entered: [] },
    tasks: { came: [], went: [] },
    other: [],
    empty: diff.changes.length === 0,
  };
  for (const change of diff.changes) {
    if (change.section === "instance") {
      const after = change.after ?? {};
      for (const field of Object.keys(after)) {
        summary.instance.push({ field, before: change.before?.[field], after: after[field] });
      }
    } else if (change.section === "variables") {
      const { scope, name } = splitVariableKey(change.key);
      if (change.kind === "added") {
        summary.variables.added.push({
          scope,
          name,
          after: change.after?.value,
          type: str(change.after?.type) ?? undefined,
        });
      } else if (change.kind === "removed") {
        const item = { scope, name, before: change.before?.value, type: str(change.before?.type) ?? undefined };
        (ended ? summary.variables.keptAtEnd : summary.variables.removed).push(item);
      } else {
        summary.variables.changed.push({
          scope,
          name,
          before: change.before?.value,
          after: change.after?.value,
          type: str(change.after?.type) ?? undefined,
        });
      }
    } else if (change.section === "activities" && change.kind !== "changed") {
      if (change.kind === "removed") summary.tokens.left.push(token(change.before));
      else summary.tokens.entered.push(token(change.after));
    } else if (change.section === "tasks" && change.kind !== "changed") {
      if (change.kind === "added") summary.tasks.came.push(task(change.after, change.key));
      else summary.tasks.went.push(task(change.before, change.key));
    } else {
      summary.other.push(change);
    }
  }
  return summary;
}
