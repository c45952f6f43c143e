// Migrating running instances to another definition as Camunda's cockpit does: editing the
// generated plan (one instruction per source activity), what runs where no instruction leads,
// the validation report beside each instruction, the execution's body, a refusal read from the
// server's answer, and a batch's progress. Pure: no I/O, no DOM.
import type {
  BatchStatistics,
  MigratingProcessInstanceReport,
  MigrationExecution,
  MigrationInstruction,
  MigrationPlan,
  MigrationPlanReport,
} from "../api/extensions";
import type { ActivityStatisticsLike } from "./badges";

export type { MigrationInstruction, MigrationPlan };

export function sourceOf(instruction: MigrationInstruction): string {
  return instruction.sourceActivityIds[0] ?? "";
}

export function targetOf(instruction: MigrationInstruction): string {
  return instruction.targetActivityIds[0] ?? "";
}

export function instruction(source: string, target: string, updateEventTrigger = false): MigrationInstruction {
  return { sourceActivityIds: [source], targetActivityIds: [target], updateEventTrigger };
}

/** The plan with instruction `index` changed by `change`. */
function editAt(
  plan: MigrationPlan,
  index: number,
  change: (instruction: MigrationInstruction) => MigrationInstruction,
): MigrationPlan {
  return { ...plan, instructions: plan.instructions.map((one, i) => (i === index ? change(one) : one)) };
}

export function withTarget(plan: MigrationPlan, index: number, target: string): MigrationPlan {
  return editAt(plan, index, (one) => ({ ...one, targetActivityIds: [target] }));
}

export function withEventTrigger(plan: MigrationPlan, index: number, updateEventTrigger: boolean): MigrationPlan {
  return editAt(plan, index, (one) => ({ ...one, updateEventTrigger }));
}

export function withoutInstruction(plan: MigrationPlan, index: number): MigrationPlan {
  return { ...plan, instructions: plan.instructions.filter((_, i) => i !== index) };
}

/** Map `source` to `target`: the source's instruction gets the new target (Camunda refuses two
 * instructions for one source activity), else a new instruction is appended. */
export function withMapping(plan: MigrationPlan, source: string, target: string): MigrationPlan {
  const index = plan.instructions.findIndex((one) => sourceOf(one) === source);
  if (index >= 0) return withTarget(plan, index, target);
  return { ...plan, instructions: [...plan.instructions, instruction(source, target)] };
}

export interface Unmapped {
  activityId: string;
  /** activity instances running there (Camunda's activity statistics) */
  instances: number;
}

/** Activities with running instances that no instruction maps: Camunda refuses to migrate an
 * instance that runs there ("There is no migration instruction for this instance's activity"). */
export function unmappedRunning(plan: MigrationPlan | null, statistics: ActivityStatisticsLike[]): Unmapped[] {
  const mapped = new Set((plan?.instructions ?? []).map(sourceOf));
  const running = new Map<string, number>();
  for (const row of statistics) {
    if (row.instances > 0 && !mapped.has(row.id)) running.set(row.id, (running.get(row.id) ?? 0) + row.instances);
  }
  return [...running].map(([activityId, instances]) => ({ activityId, instances }));
}

/** Source activity id → the failures the report names for its instruction. */
export function failuresBySource(report: MigrationPlanReport | null): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const entry of report?.instructionReports ?? []) {
    const source = sourceOf(entry.instruction);
    found.set(source, [...(found.get(source) ?? []), ...entry.failures]);
  }
  return found;
}

/** Variable name → failures, for the variables the plan sets. */
export function variableFailures(report: MigrationPlanReport | null): [string, string[]][] {
  return Object.entries(report?.variableReports ?? {})
    .map(([name, entry]): [string, string[]] => [name, entry.failures ?? []])
    .filter(([, failures]) => failures.length > 0);
}

export function reportFails(report: MigrationPlanReport | null): boolean {
  return failuresBySource(report).size > 0 || variableFailures(report).length > 0;
}

/** Which instances to migrate: every running instance of the source definition (Camunda's
 * `processInstanceQuery`), or the ones picked by id. */
export type Selection = { all: true } | { all: false; ids: string[] };

export interface ExecutionOptions {
  skipCustomListeners: boolean;
  skipIoMappings: boolean;
}

export function executionBody(plan: MigrationPlan, selection: Selection, options: ExecutionOptions): MigrationExecution {
  return {
    migrationPlan: plan,
    ...(selection.all
      ? { processInstanceQuery: { processDefinitionId: plan.sourceProcessDefinitionId } }
      : { processInstanceIds: selection.ids }),
    skipCustomListeners: options.skipCustomListeners,
    skipIoMappings: options.skipIoMappings,
  };
}

/** A refused migration as its 400 body tells it: the plan's report (MigrationPlanValidation-
 * Exception) or one instance's (MigratingProcessInstanceValidationException); null otherwise. */
export type Refusal =
  | { kind: "plan"; message: string; report: MigrationPlanReport }
  | { kind: "instance"; message: string; report: MigratingProcessInstanceReport };

export function refusalOf(body: unknown): Refusal | null {
  if (!body || typeof body !== "object") return null;
  const { type, message, validationReport } = body as { type?: unknown; message?: unknown; validationReport?: unknown };
  if (!validationReport || typeof validationReport !== "object") return null;
  const text = typeof message === "string" ? message : "";
  if (type === "MigrationPlanValidationException") {
    const report = validationReport as Partial<MigrationPlanReport>;
    return {
      kind: "plan",
      message: text,
      report: { instructionReports: report.instructionReports ?? [], variableReports: report.variableReports ?? {} },
    };
  }
  if (type === "MigratingProcessInstanceValidationException") {
    const report = validationReport as Partial<MigratingProcessInstanceReport>;
    return {
      kind: "instance",
      message: text,
      report: {
        processInstanceId: report.processInstanceId ?? "",
        failures: report.failures ?? [],
        activityInstanceValidationReports: report.activityInstanceValidationReports ?? [],
        transitionInstanceValidationReports: report.transitionInstanceValidationReports ?? [],
      },
    };
  }
  return null;
}

/** The instruction as one line: `Pack order (packOrder) → Pack parcel (packParcel)`. */
export function describeMapping(
  instruction: MigrationInstruction | null,
  sourceNames: Map<string, string>,
  targetNames: Map<string, string>,
): string {
  if (!instruction) return "no instruction";
  return `${activityLabel(sourceNames, sourceOf(instruction))} → ${activityLabel(targetNames, targetOf(instruction))}`;
}

/** An activity as the page names it: `Pack order (packOrder)`, or its id when it has no name. */
export function activityLabel(names: Map<string, string>, id: string): string {
  const known = names.get(id);
  return known && known !== id ? `${known} (${id})` : id;
}

/** A definition as the page names it: `Shipment v2`, with its version tag if it has one. */
export function definitionLabel(d: { key: string; name?: string | null; version: number; versionTag?: string | null }): string {
  return `${d.name || d.key} v${d.version}${d.versionTag ? ` (${d.versionTag})` : ""}`;
}

// -- batches ----------------------------------------------------------------------------------

export interface Progress {
  completed: number;
  failed: number;
  total: number;
  /** 0..100, rounded down: 100 only when every job completed */
  percent: number;
}

export function batchProgress(batch: Pick<BatchStatistics, "totalJobs" | "completedJobs" | "failedJobs">): Progress {
  const total = Math.max(0, batch.totalJobs);
  const completed = Math.min(total, Math.max(0, batch.completedJobs));
  return {
    completed,
    failed: Math.max(0, batch.failedJobs),
    total,
    percent: total === 0 ? 0 : Math.floor((completed * 100) / total),
  };
}

/** What a running batch is doing, in a word. */
export function batchState(
  batch: Pick<BatchStatistics, "suspended" | "failedJobs" | "jobsCreated" | "totalJobs" | "remainingJobs">,
): "suspended" | "stuck" | "failing" | "creating jobs" | "running" | "finishing" {
  if (batch.suspended) return "suspended";
  if (batch.failedJobs > 0 && batch.failedJobs >= batch.remainingJobs && batch.jobsCreated >= batch.totalJobs) {
    return "stuck";
  }
  if (batch.failedJobs > 0) return "failing";
  if (batch.jobsCreated < batch.totalJobs) return "creating jobs";
  if (batch.remainingJobs === 0) return "finishing";
  return "running";
}

/** Batches that still move: not suspended, and not stuck with every remaining job failed (out
 * of retries; they wait for an operator). The page polls while there is one. */
export function anyRunning(
  batches: Pick<BatchStatistics, "suspended" | "remainingJobs" | "failedJobs" | "jobsCreated" | "totalJobs">[],
): boolean {
  return batches.some(
    (batch) =>
      !batch.suspended &&
      (batch.jobsCreated < batch.totalJobs || batch.remainingJobs === 0 || batch.remainingJobs > batch.failedJobs),
  );
}

const BATCH_TYPES: Record<string, string> = {
  "instance-migration": "Migration",
  "instance-modification": "Modification",
  "instance-restart": "Restart",
  "instance-deletion": "Deletion",
  "historic-instance-deletion": "History deletion",
  "instance-update-suspension-state": "Suspension",
  "set-job-retries": "Job retries",
  "set-external-task-retries": "External task retries",
  "process-set-removal-time": "Removal time",
  "decision-set-removal-time": "Decision removal time",
  "batch-set-removal-time": "Batch removal time",
  "historic-decision-instance-deletion": "Decision history deletion",
  "set-variables": "Set variables",
  "correlate-message": "Message correlation",
};

export function batchTypeName(type: string): string {
  return BATCH_TYPES[type] ?? type;
}

/** Whether Camunda's `updateEventTrigger` means anything for a source activity of this kind:
 * the events that wait for a trigger (a timer's due date, a message or signal name). */
export function hasEventTrigger(kind: string | undefined): boolean {
  return kind === "boundaryEvent" || kind === "intermediateCatchEvent" || kind === "startEvent" || kind === "receiveTask";
}
