// Instance search: the filters as the URL holds them (shareable), and the Camunda history query
// they stand for (GET /history/process-instance and its /count).
import type { Query } from "../api/http";

export const STATES = ["running", "ended", "incident", "suspended"] as const;
export type InstanceState = (typeof STATES)[number] | "";

export const OPERATORS = ["eq", "neq", "gt", "gteq", "lt", "lteq", "like"] as const;
export type Operator = (typeof OPERATORS)[number];

export interface InstanceFilters {
  businessKey: string;
  state: InstanceState;
  definitionKey: string;
  /** Camunda's `name_op_value`, e.g. `amount_gt_1000` */
  variable: string;
  /** UTC times as a datetime-local input writes them: `2026-12-06T18:47` */
  startedAfter: string;
  startedBefore: string;
  endedAfter: string;
  endedBefore: string;
  /** 1-based */
  page: number;
}

const TEXT_FIELDS = [
  "businessKey",
  "definitionKey",
  "variable",
  "startedAfter",
  "startedBefore",
  "endedAfter",
  "endedBefore",
] as const;

export const EMPTY_FILTERS: InstanceFilters = {
  businessKey: "",
  state: "",
  definitionKey: "",
  variable: "",
  startedAfter: "",
  startedBefore: "",
  endedAfter: "",
  endedBefore: "",
  page: 1,
};

export function parseFilters(params: URLSearchParams): InstanceFilters {
  const filters: InstanceFilters = { ...EMPTY_FILTERS };
  for (const name of TEXT_FIELDS) filters[name] = (params.get(name) ?? "").trim();
  const state = params.get("state") ?? "";
  filters.state = (STATES as readonly string[]).includes(state) ? (state as InstanceState) : "";
  filters.page = parsePage(params.get("page"));
  return filters;
}

export function parsePage(text: string | null): number {
  const page = Number(text);
  return Number.isInteger(page) && page >= 1 ? page : 1;
}

/** The URL's query string for the filters: empty ones and page 1 left out, a stable order. */
export function filtersToSearch(filters: InstanceFilters): string {
  const params = new URLSearchParams();
  for (const name of ["businessKey", "state", "definitionKey", "variable"] as const) {
    if (filters[name]) params.set(name, filters[name]);
  }
  for (const name of ["startedAfter", "startedBefore", "endedAfter", "endedBefore"] as const) {
    if (filters[name]) params.set(name, filters[name]);
  }
  if (filters.page > 1) params.set("page", String(filters.page));
  const text = params.toString();
  return text ? `?${text}` : "";
}

export interface VariableFilter {
  name: string;
  operator: Operator;
  value: string;
}

export function parseVariableFilter(text: string): VariableFilter | null {
  const m = /^(.+?)_(eq|neq|gteq|gt|lteq|lt|like)_(.*)$/s.exec(text);
  if (!m) return null;
  return { name: m[1]!, operator: m[2] as Operator, value: m[3]! };
}

export function formatVariableFilter(filter: VariableFilter): string {
  return filter.name ? `${filter.name}_${filter.operator}_${filter.value}` : "";
}

/** `2026-12-06T18:47` (UTC) → Camunda's `2026-12-06T18:47:00.000+0000`; null when not a time. */
export function toCamundaDate(text: string): string | null {
  const m = /^(\d{4}-\d{2}-\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3}))?)?)?$/.exec(text);
  if (!m) return null;
  const [, day, hh = "00", mm = "00", ss = "00", ms = "0"] = m;
  return `${day}T${hh}:${mm}:${ss}.${ms.padEnd(3, "0")}+0000`;
}

/** The history query for the filters, without paging (the /count call's). */
export function historyFilterQuery(filters: InstanceFilters): Query {
  const query: Query = {};
  if (filters.businessKey) query.processInstanceBusinessKey = filters.businessKey;
  if (filters.definitionKey) query.processDefinitionKey = filters.definitionKey;
  if (filters.variable) query.variables = filters.variable;
  if (filters.state === "running") query.unfinished = true;
  if (filters.state === "ended") query.finished = true;
  if (filters.state === "incident") query.withIncidents = true;
  if (filters.state === "suspended") query.suspended = true;
  const dates = [
    ["startedAfter", "startedAfter"],
    ["startedBefore", "startedBefore"],
    ["endedAfter", "finishedAfter"],
    ["endedBefore", "finishedBefore"],
  ] as const;
  for (const [field, parameter] of dates) {
    const date = filters[field] ? toCamundaDate(filters[field]) : null;
    if (date) query[parameter] = date;
  }
  return query;
}

export const PAGE_SIZE = 25;

export function historyPageQuery(filters: InstanceFilters, pageSize = PAGE_SIZE): Query {
  return {
    ...historyFilterQuery(filters),
    sortBy: "startTime",
    sortOrder: "desc",
    firstResult: (filters.page - 1) * pageSize,
    maxResults: pageSize,
  };
}

export function pageCount(total: number, pageSize = PAGE_SIZE): number {
  return Math.max(1, Math.ceil(total / pageSize));
}

/** Problems a reader can fix before the query is sent (shown next to the filter form). */
export function filterProblems(filters: InstanceFilters): string[] {
  const problems: string[] = [];
  if (filters.variable && !parseVariableFilter(filters.variable)) {
    problems.push(`Variable filter "${filters.variable}" is not name_operator_value`);
  }
  for (const name of ["startedAfter", "startedBefore", "endedAfter", "endedBefore"] as const) {
    if (filters[name] && !toCamundaDate(filters[name])) {
      problems.push(`${name} "${filters[name]}" is not a date such as 2026-12-06T18:47`);
    }
  }
  return problems;
}
