// The types of the /flowledger/v1 extensions and the Camunda endpoints the pages use beyond
// the core resources. Most are the generated ones (schema.d.ts, from the served OpenAPI
// document) under the names the pages use; the HAND-WRITTEN ones below are marked so: an
// endpoint the document does not describe yet, or a part it leaves untyped. When `npm run
// gen:api` brings one in, replace the hand-written type with the generated one.
import type { components } from "./schema";

type G = components["schemas"];

export type Session = G["SessionDto"];
export type TimelineEntry = G["TimelineEntryDto"];
export type Trail = G["TrailDto"];
export type ConditionExplained = G["ConditionDto"];
export type Cause = G["CauseDto"];
export type Change = G["ChangeDto"];
export type InstanceDiff = G["DiffDto"];
export type LogHead = G["LogHeadDto"];
export type VerificationReport = G["VerificationReportDto"];
export type VerifyTask = G["VerifyTaskDto"];
export type FormField = G["FormFieldDto"];
export type FormFieldConstraint = G["FormFieldConstraintDto"];
export type FormInfo = G["FormDto"];
export type Comment = G["CommentDto"];

/** HAND-WRITTEN: the document types the state's `instance` as a free-form object. */
export type InstanceState = Omit<G["StateDto"], "instance"> & { instance: InstanceView };

// -- HAND-WRITTEN: dashboard ----------------------------------------------------------------------

export interface DashboardDefinition {
  id: string;
  key: string;
  name: string | null;
  version: number;
  runningInstances: number;
  openIncidents: number;
  openTasks: number;
}

export interface RecentFailure {
  time: string;
  processInstanceId: string;
  processDefinitionId: string;
  activityId: string | null;
  incidentType: string;
  message: string | null;
}

export interface Dashboard {
  definitions: DashboardDefinition[];
  failedLastHour: RecentFailure[];
}

// -- HAND-WRITTEN: definitions --------------------------------------------------------------------

/** Camunda's GET /history/process-definition/{id}/statistics entry. */
export interface HistoricActivityStatistics {
  id: string;
  instances: number;
  canceled?: number;
  finished?: number;
  completeScope?: number;
  openIncidents?: number;
  resolvedIncidents?: number;
  deletedIncidents?: number;
}

export interface ActivityDuration {
  activityId: string;
  count: number;
  finished: number;
  avgMillis: number | null;
  minMillis: number | null;
  maxMillis: number | null;
}

// -- HAND-WRITTEN: the instance view inside /state ------------------------------------------------

export interface ActivityView {
  activityInstanceId: string;
  activityId: string;
  activityName: string | null;
  activityType: string;
  executionId: string;
  parentActivityInstanceId: string;
  startTime: string;
}

export interface TaskView {
  id: string;
  name: string | null;
  taskDefinitionKey: string;
  assignee: string | null;
  owner: string | null;
  candidateUsers: string[];
  candidateGroups: string[];
  created: string;
  dueDate: string | null;
  priority: number;
}

export interface VariableView {
  id: string;
  name: string;
  type: string;
  value: unknown;
  scope: string;
}

export interface JobView {
  id: string;
  jobType: string;
  activityId: string;
  dueDate: string | null;
  retries: number;
  suspended: boolean;
  errorMessage: string | null;
}

export interface ExternalTaskView {
  id: string;
  topic: string;
  activityId: string;
  workerId: string | null;
  lockExpiration: string | null;
  retries: number | null;
  errorMessage: string | null;
}

export interface IncidentView {
  id: string;
  incidentType: string;
  activityId: string | null;
  message: string | null;
}

/** core.instance_view.InstanceView as /state writes it. */
export interface InstanceView {
  id: string;
  definitionId: string;
  definitionKey: string;
  definitionVersion: number;
  businessKey: string | null;
  status: string;
  suspended: boolean;
  startTime: string;
  endTime: string | null;
  endActivityId: string | null;
  events: number;
  activities: ActivityView[];
  tasks: TaskView[];
  variables: VariableView[];
  jobs: JobView[];
  externalTasks: ExternalTaskView[];
  subscriptions: { id: string; eventType: string; eventName: string; activityId: string }[];
  incidents: IncidentView[];
  calledInstances: Record<string, string>;
}

// -- repair (issue 36) ---------------------------------------------------------------------------

type Instruction = G["InstructionDto"];

/** One instruction of POST /process-instance/{id}/modification: the generated InstructionDto
 * narrowed to the shapes the cockpit sends (the document types `type` as any string). */
export type ModificationInstruction =
  | { type: "startBeforeActivity"; activityId: NonNullable<Instruction["activityId"]> }
  | { type: "startAfterActivity"; activityId: NonNullable<Instruction["activityId"]> }
  | { type: "cancel"; activityId: NonNullable<Instruction["activityId"]> }
  | { type: "cancel"; activityInstanceId: NonNullable<Instruction["activityInstanceId"]> }
  | { type: "cancel"; transitionInstanceId: NonNullable<Instruction["transitionInstanceId"]> };

export type ProcessInstanceModification = Omit<G["ProcessInstanceModificationDto"], "instructions"> & {
  instructions: ModificationInstruction[];
};

type RestartInstruction = G["RestartProcessInstanceModificationInstructionDto"];

/** POST /process-definition/{id}/restart for a list of instance ids, each started before one
 * activity: the generated RestartProcessInstanceDto with the parts the cockpit sends. */
export type RestartProcessInstance = Omit<G["RestartProcessInstanceDto"], "instructions" | "processInstanceIds"> & {
  processInstanceIds: string[];
  instructions: { type: "startBeforeActivity"; activityId: NonNullable<RestartInstruction["activityId"]> }[];
};

// -- migration (issue 37) -----------------------------------------------------------------------

type Lists<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (infer E)[] ? NonNullable<E>[] : NonNullable<T[K]> };

/** One instruction of a plan: the generated MigrationInstructionDto as the server answers it and
 * the cockpit sends it (each list holds one activity id, the flag is set). */
export type MigrationInstruction = Lists<G["MigrationInstructionDto"]>;

/** The generated MigrationPlanDto with both definitions and the instructions present. */
export type MigrationPlan = Omit<
  G["MigrationPlanDto"],
  "sourceProcessDefinitionId" | "targetProcessDefinitionId" | "instructions"
> & {
  sourceProcessDefinitionId: NonNullable<G["MigrationPlanDto"]["sourceProcessDefinitionId"]>;
  targetProcessDefinitionId: NonNullable<G["MigrationPlanDto"]["targetProcessDefinitionId"]>;
  instructions: MigrationInstruction[];
};

/** POST /migration/generate: the generated MigrationPlanGenerationDto with both definitions. */
export type MigrationPlanGeneration = G["MigrationPlanGenerationDto"] & {
  sourceProcessDefinitionId: string;
  targetProcessDefinitionId: string;
};

export type MigrationInstructionReport = Omit<G["MigrationInstructionValidationReportDto"], "instruction"> & {
  instruction: MigrationInstruction;
};

export type MigrationVariableReport = G["MigrationVariableValidationReportDto"];

/** POST /migration/validate's answer, and the report of a MigrationPlanValidationException. */
export type MigrationPlanReport = Omit<G["MigrationPlanReportDto"], "instructionReports"> & {
  instructionReports: MigrationInstructionReport[];
};

/** POST /migration/execute and /migration/executeAsync: the generated MigrationExecutionDto
 * with the plan, and the instance query the cockpit sends (the source definition's instances). */
export type MigrationExecution = Omit<G["MigrationExecutionDto"], "migrationPlan" | "processInstanceQuery"> & {
  migrationPlan: MigrationPlan;
  processInstanceQuery?: { processDefinitionId: string };
};

// -- batches (issue 37) --------------------------------------------------------------------------

export type Batch = G["BatchDto"];
export type BatchStatistics = G["BatchStatisticsDto"];
export type HistoricBatch = G["HistoricBatchDto"];

// -- HAND-WRITTEN: the report of a refused /migration/execute (issue 37) -----------------------
// Camunda 7's shapes; the document types the 400 as a plain error body.

export interface MigratingActivityInstanceReport {
  activityInstanceId: string;
  sourceScopeId: string;
  migrationInstruction: MigrationInstruction | null;
  failures: string[];
}

export interface MigratingTransitionInstanceReport {
  transitionInstanceId: string;
  sourceScopeId: string;
  migrationInstruction: MigrationInstruction | null;
  failures: string[];
}

/** The report of a MigratingProcessInstanceValidationException: why one instance cannot move. */
export interface MigratingProcessInstanceReport {
  processInstanceId: string;
  failures: string[];
  activityInstanceValidationReports: MigratingActivityInstanceReport[];
  transitionInstanceValidationReports: MigratingTransitionInstanceReport[];
}
