// What the instance diagram shows at a position: tokens where activities are active, incident
// markers, the activities passed and the sequence flows taken (the trail; without the trail
// endpoint, the passed activities are read from the timeline and no flow is highlighted).
import type { InstanceView, TimelineEntry, Trail } from "../api/extensions";

export interface InstanceMarks {
  tokens: Map<string, number>;
  incidents: Map<string, number>;
  passed: Map<string, number>;
  flows: Set<string>;
}

function countBy<T>(items: T[], key: (item: T) => string | null | undefined): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) {
    const k = key(item);
    if (k) counts.set(k, (counts.get(k) ?? 0) + 1);
  }
  return counts;
}

/** Activities the timeline shows as started up to `position` (a visit each). */
export function trailFromTimeline(timeline: TimelineEntry[], position: number): Trail {
  const visits = new Map<string, number>();
  for (const entry of timeline) {
    if (entry.position > position) break;
    if (entry.activityId && entry.what.endsWith("started")) {
      visits.set(entry.activityId, (visits.get(entry.activityId) ?? 0) + 1);
    }
  }
  return {
    position,
    activities: [...visits].map(([activityId, count]) => ({ activityId, count, active: false })),
    sequenceFlows: [],
  };
}

export function instanceMarks(view: InstanceView, trail: Trail | null): InstanceMarks {
  // a scope (the process itself, a sub process) holds its children's tokens: mark the leaves
  const parents = new Set(view.activities.map((a) => a.parentActivityInstanceId));
  const leaves = view.activities.filter((a) => !parents.has(a.activityInstanceId));
  const tokens = countBy(leaves, (a) => a.activityId);
  const incidents = countBy(view.incidents, (i) => i.activityId);
  const passed = new Map<string, number>();
  for (const activity of trail?.activities ?? []) {
    // a visit still going on is a token, not a pass
    const visits = activity.count - (activity.active || tokens.has(activity.activityId) ? 1 : 0);
    if (visits > 0) passed.set(activity.activityId, visits);
  }
  return { tokens, incidents, passed, flows: new Set(trail?.sequenceFlows ?? []) };
}

/** The position "why" explains for an activity: its latest start at or before `position`. */
export function whyPosition(timeline: TimelineEntry[], activityId: string, position: number): number | null {
  let found: number | null = null;
  let any: number | null = null;
  for (const entry of timeline) {
    if (entry.position > position) break;
    if (entry.activityId !== activityId) continue;
    any = entry.position;
    if (entry.what.endsWith("started")) found = entry.position;
  }
  return found ?? any;
}
