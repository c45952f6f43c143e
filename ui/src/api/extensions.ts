// HAND-WRITTEN TYPES — only for endpoints the served OpenAPI document (openapi.json, from which
// schema.d.ts is generated) does not describe yet: flowledger's /flowledger/v1 extensions and a
// few Camunda endpoints (forms, comments, history statistics). When `npm run gen:api` brings
// one of them in, delete its type here and use the generated one.

// -- session (rest/session.py) -------------------------------------------------------------------

export interface Session {
  authenticationRequired: boolean;
  authenticated: boolean;
  user: string | null;
  groups: string[];
  csrfToken: string | null;
}

// -- dashboard --------------------------------------------------------------------------------------

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

// -- definitions -------------------------------------------------------------------------------------

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

// -- an instance's log ---------------------------------------------------------------------------------

export interface RecordedEvent {
  position: number;
  streamVersion: number;
  type: string;
  recordedAt: string;
  commandId: string;
  commandType: string;
  actor: string | null;
  payload: Record<string, unknown>;
  via: string | null;
}

export interface TimelineEntry {
  position: number;
  time: string;
  activityId: string | null;
  activityName: string | null;
  what: string;
  actor: string | null;
  via: string | null;
  commandType: string;
  variables: Record<string, unknown>;
  /** hash chain status of the entry's commit (new in issue 32; absent on older servers) */
  chain?: "verified" | "damaged";
}

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

export interface InstanceState {
  position: number;
  recordedAt: string | null;
  instance: InstanceView;
}

export interface Change {
  section: string;
  key: string;
  kind: "added" | "removed" | "changed";
  before: Record<string, unknown> | null;
  after: Record<string, unknown> | null;
}

export interface InstanceDiff {
  from: { position: number; recordedAt: string | null };
  to: { position: number; recordedAt: string | null };
  changes: Change[];
}

export interface Trail {
  position: number;
  activities: { activityId: string; count: number; active: boolean }[];
  sequenceFlows: string[];
}

export interface ConditionExplained {
  gatewayId: string;
  flowId: string;
  expression: string | null;
  result: unknown;
  variables: Record<string, unknown>;
}

export interface Cause {
  position: number;
  recordedAt: string;
  commandId: string;
  commandType: string;
  actor: string | null;
  via: string | null;
  events: string[];
  becauseOf: string | null;
  /** new in issue 32: the conditions that chose the path on the way */
  conditions?: ConditionExplained[];
}

// -- the log -----------------------------------------------------------------------------------------

export interface LogHead {
  anchor: string;
  position: number;
  commits: number;
  problems: string[];
}

export interface VerificationReport {
  ok: boolean;
  commitsChecked: number;
  streamsChecked: number;
  rowsCompared: number;
  problems: string[];
  anchor: string;
}

export interface VerifyTask {
  id: string;
  state: "running" | "done" | "failed";
  checked: number;
  total: number;
  report: VerificationReport | null;
}

// -- forms and comments ----------------------------------------------------------------------------

export type FormFieldType = "string" | "long" | "boolean" | "date" | "enum" | (string & {});

export interface FormFieldConstraint {
  name: "required" | "minlength" | "maxlength" | "min" | "max" | "readonly" | (string & {});
  config: string | null;
}

export interface FormField {
  id: string;
  label: string | null;
  type: FormFieldType;
  defaultValue: unknown;
  values: { id: string; name: string | null }[];
  constraints: FormFieldConstraint[];
  /** a date field's pattern (Java SimpleDateFormat, Camunda's default dd/MM/yyyy) */
  datePattern?: string | null;
}

/** Camunda's GET /task/{id}/form and /process-definition/{id}/startForm. */
export interface FormInfo {
  key: string | null;
  contextPath: string | null;
}

export interface Comment {
  id: string;
  userId: string | null;
  taskId: string;
  processInstanceId?: string | null;
  time: string;
  message: string;
}
