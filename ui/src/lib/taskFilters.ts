// The tasklist's filters and the Camunda task query each stands for.
import type { Query } from "../api/http";

export const FILTERS = ["mine", "groups", "unassigned", "all"] as const;
export type TaskFilter = (typeof FILTERS)[number];

export const LABELS: Record<TaskFilter, string> = {
  mine: "My tasks",
  groups: "My groups' tasks",
  unassigned: "Unassigned",
  all: "All tasks",
};

/** The task query for a filter: Camunda's assignee / candidateGroups / unassigned parameters. */
export function taskQuery(filter: TaskFilter, user: string | null, groups: string[]): Query | null {
  switch (filter) {
    case "mine":
      return user ? { assignee: user } : null;
    case "groups":
      return groups.length ? { candidateGroups: groups.join(",") } : null;
    case "unassigned":
      return { unassigned: true };
    default:
      return {};
  }
}
