// Typed calls of the REST API the pages use: Camunda's /engine-rest (types generated from the
// served OpenAPI document, schema.d.ts) and flowledger's /flowledger/v1 extensions (extensions.ts).
import type { components } from "./schema";
import type * as X from "./extensions";
import { del, get, post, put, request, type Query } from "./http";

export type S = components["schemas"];
export type ProcessDefinition = S["ProcessDefinitionDto"];
export type HistoricProcessInstance = S["HistoricProcessInstanceDto"];
export type ProcessInstance = S["ProcessInstanceDto"];
export type ActivityStatistics = S["ActivityStatisticsResultDto"];
export type DefinitionStatistics = S["ProcessDefinitionStatisticsResultDto"];
export type ActivityInstance = S["ActivityInstanceDto"];
export type Task = S["TaskDto"];
export type Job = S["JobDto"];
export type Incident = S["IncidentDto"];
export type VariableValue = S["VariableValueDto"];
export type DecisionDefinition = S["DecisionDefinitionDto"];
export type HistoricDecisionInstance = S["HistoricDecisionInstanceDto"];
export type Count = S["CountResultDto"];
export type { Batch, BatchStatistics, HistoricBatch, MigrationPlan, MigrationPlanReport } from "./extensions";

const R = "/engine-rest";
const F = "/flowledger/v1";
const e = encodeURIComponent;

export const api = {
  // -- session --------------------------------------------------------------------------------
  session: () => get<X.Session>(`${F}/session`),
  signIn: (username: string, password: string) =>
    request<X.Session>("POST", `${F}/session`, { body: { username, password }, quiet401: true }),
  signOut: () => del<void>(`${F}/session`),

  // -- dashboard and definitions --------------------------------------------------------------
  dashboard: () => get<X.Dashboard>(`${F}/dashboard`),
  definitionsStatistics: () =>
    get<DefinitionStatistics[]>(`${R}/process-definition/statistics`, { incidents: true }),
  definition: (id: string) => get<ProcessDefinition>(`${R}/process-definition/${e(id)}`),
  definitions: (query: Query) => get<ProcessDefinition[]>(`${R}/process-definition`, query),
  definitionXml: (id: string) =>
    get<{ id: string; bpmn20Xml: string }>(`${R}/process-definition/${e(id)}/xml`),
  activityStatistics: (id: string) =>
    get<ActivityStatistics[]>(`${R}/process-definition/${e(id)}/statistics`, { incidents: true }),
  historicActivityStatistics: (id: string) =>
    get<X.HistoricActivityStatistics[]>(`${R}/history/process-definition/${e(id)}/statistics`, {
      finished: true,
      canceled: true,
      incidents: true,
    }),
  activityDurations: (id: string) =>
    get<X.ActivityDuration[]>(`${F}/process-definition/${e(id)}/activity-durations`),

  // -- instances ------------------------------------------------------------------------------
  historicInstances: (query: Query) =>
    get<HistoricProcessInstance[]>(`${R}/history/process-instance`, query),
  historicInstanceCount: (query: Query) =>
    get<Count>(`${R}/history/process-instance/count`, query),
  historicInstance: (id: string) =>
    get<HistoricProcessInstance>(`${R}/history/process-instance/${e(id)}`),
  instance: (id: string) => get<ProcessInstance>(`${R}/process-instance/${e(id)}`),
  activityTree: (id: string) =>
    get<ActivityInstance>(`${R}/process-instance/${e(id)}/activity-instances`),
  suspend: (id: string, suspended: boolean) =>
    put<void>(`${R}/process-instance/${e(id)}/suspended`, { suspended }),
  cancel: (id: string) => del<void>(`${R}/process-instance/${e(id)}`),
  modify: (id: string, body: X.ProcessInstanceModification) =>
    post<void>(`${R}/process-instance/${e(id)}/modification`, body),
  restart: (definitionId: string, body: X.RestartProcessInstance) =>
    post<void>(`${R}/process-definition/${e(definitionId)}/restart`, body),
  variables: (id: string) =>
    get<Record<string, VariableValue>>(`${R}/process-instance/${e(id)}/variables`, {
      deserializeValues: false,
    }),
  setVariable: (id: string, name: string, value: VariableValue) =>
    put<void>(`${R}/process-instance/${e(id)}/variables/${e(name)}`, value),
  deleteVariable: (id: string, name: string) =>
    del<void>(`${R}/process-instance/${e(id)}/variables/${e(name)}`),
  jobs: (query: Query) => get<Job[]>(`${R}/job`, query),
  setJobRetries: (id: string, retries: number) =>
    put<void>(`${R}/job/${e(id)}/retries`, { retries }),
  setExternalTaskRetries: (id: string, retries: number) =>
    put<void>(`${R}/external-task/${e(id)}/retries`, { retries }),
  incidents: (query: Query) => get<Incident[]>(`${R}/incident`, query),
  runningInstances: (query: Query) => get<ProcessInstance[]>(`${R}/process-instance`, query),
  runningInstanceCount: (query: Query) => get<Count>(`${R}/process-instance/count`, query),

  // -- migration and batches (Camunda's, issue 37) --------------------------------------------
  generateMigration: (body: X.MigrationPlanGeneration) =>
    post<X.MigrationPlan>(`${R}/migration/generate`, body),
  validateMigration: (plan: X.MigrationPlan) =>
    post<X.MigrationPlanReport>(`${R}/migration/validate`, plan),
  executeMigration: (body: X.MigrationExecution) => post<void>(`${R}/migration/execute`, body),
  executeMigrationAsync: (body: X.MigrationExecution) =>
    post<X.Batch>(`${R}/migration/executeAsync`, body),
  batchStatistics: () => get<X.BatchStatistics[]>(`${R}/batch/statistics`),
  suspendBatch: (id: string, suspended: boolean) =>
    put<void>(`${R}/batch/${e(id)}/suspended`, { suspended }),
  deleteBatch: (id: string) => del<void>(`${R}/batch/${e(id)}`, { cascade: true }),
  historicBatches: (query: Query) => get<X.HistoricBatch[]>(`${R}/history/batch`, query),

  // -- the instance's log (flowledger) --------------------------------------------------------
  timeline: (id: string) => get<X.TimelineEntry[]>(`${F}/process-instance/${e(id)}/timeline`),
  // `at` is the parameter the server reads; `position` is the contract's name for it
  state: (id: string, position?: number, signal?: AbortSignal) =>
    request<X.InstanceState>("GET", `${F}/process-instance/${e(id)}/state`, {
      query: position === undefined ? undefined : { at: position, position },
      signal,
    }),
  diff: (id: string, from: number, to: number) =>
    get<X.InstanceDiff>(`${F}/process-instance/${e(id)}/diff`, { from, to }),
  why: (id: string, position: number) =>
    get<X.Cause[]>(`${F}/process-instance/${e(id)}/why/${position}`),
  trail: (id: string, position?: number) =>
    get<X.Trail>(`${F}/process-instance/${e(id)}/trail`, { position }),
  packageUrl: (id: string) => `${F}/process-instance/${e(id)}/package`,
  logHead: () => get<X.LogHead>(`${F}/log/head`),
  startVerify: () => post<{ id: string }>(`${F}/log/verify-tasks`),
  verifyTask: (id: string) => get<X.VerifyTask>(`${F}/log/verify-tasks/${e(id)}`),

  // -- decisions ------------------------------------------------------------------------------
  decision: (id: string) => get<DecisionDefinition>(`${R}/decision-definition/${e(id)}`),
  decisions: (query: Query) => get<DecisionDefinition[]>(`${R}/decision-definition`, query),
  decisionXml: (id: string) =>
    get<{ id: string; dmnXml: string }>(`${R}/decision-definition/${e(id)}/xml`),
  decisionInstances: (query: Query) =>
    get<HistoricDecisionInstance[]>(`${R}/history/decision-instance`, {
      includeInputs: true,
      includeOutputs: true,
      sortBy: "evaluationTime",
      sortOrder: "desc",
      ...query,
    }),
  decisionInstanceCount: (query: Query) =>
    get<Count>(`${R}/history/decision-instance/count`, query),

  // -- tasks ----------------------------------------------------------------------------------
  tasks: (query: Query) => get<Task[]>(`${R}/task`, query),
  taskCount: (query: Query) => get<Count>(`${R}/task/count`, query),
  task: (id: string) => get<Task>(`${R}/task/${e(id)}`),
  claim: (id: string, userId: string) => post<void>(`${R}/task/${e(id)}/claim`, { userId }),
  unclaim: (id: string) => post<void>(`${R}/task/${e(id)}/unclaim`),
  assign: (id: string, userId: string | null) =>
    post<void>(`${R}/task/${e(id)}/assignee`, { userId }),
  taskForm: (id: string) => get<X.FormInfo>(`${R}/task/${e(id)}/form`),
  taskFormFields: (id: string) => get<X.FormField[]>(`${F}/task/${e(id)}/form-fields`),
  taskFormVariables: (id: string) =>
    get<Record<string, VariableValue>>(`${R}/task/${e(id)}/form-variables`),
  submitTaskForm: (id: string, variables: Record<string, VariableValue>) =>
    post<void>(`${R}/task/${e(id)}/submit-form`, { variables }),
  comments: (id: string) => get<X.Comment[]>(`${R}/task/${e(id)}/comment`),
  addComment: (id: string, message: string) =>
    post<X.Comment>(`${R}/task/${e(id)}/comment/create`, { message }),
  startForm: (id: string) => get<X.FormInfo>(`${R}/process-definition/${e(id)}/startForm`),
  startFormVariables: (id: string) =>
    get<Record<string, VariableValue>>(`${R}/process-definition/${e(id)}/form-variables`),
  identityLinks: (id: string) =>
    get<{ userId: string | null; groupId: string | null; type: string }[]>(
      `${R}/task/${e(id)}/identity-links`,
    ),
  startFormFields: (id: string) =>
    get<X.FormField[]>(`${F}/process-definition/${e(id)}/form-fields`),
  submitStartForm: (
    id: string,
    variables: Record<string, VariableValue>,
    businessKey: string | undefined,
  ) =>
    post<ProcessInstance>(`${R}/process-definition/${e(id)}/submit-form`, {
      variables,
      businessKey,
    }),
};

export type * as X from "./extensions";
export { ApiError } from "./http";
