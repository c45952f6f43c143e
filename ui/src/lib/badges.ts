// What the definition diagram shows on each activity: running/incident badges from Camunda's
// activity statistics, and the history heat map (how often an activity ran, how long it took).
import type { ActivityDuration, HistoricActivityStatistics } from "../api/extensions";

export interface ActivityStatisticsLike {
  id: string;
  instances: number;
  failedJobs?: number;
  incidents?: { incidentType: string; incidentCount: number }[] | null;
}

export interface Badge {
  activityId: string;
  running: number;
  incidents: number;
}

/** One badge per activity with something to show, in the statistics' order. */
export function badgeData(statistics: ActivityStatisticsLike[]): Badge[] {
  const byActivity = new Map<string, Badge>();
  for (const row of statistics) {
    const badge = byActivity.get(row.id) ?? { activityId: row.id, running: 0, incidents: 0 };
    badge.running += row.instances;
    badge.incidents += (row.incidents ?? []).reduce((sum, i) => sum + i.incidentCount, 0);
    byActivity.set(row.id, badge);
  }
  return [...byActivity.values()].filter((b) => b.running > 0 || b.incidents > 0);
}

export interface Heat {
  activityId: string;
  /** activity instances: running + finished (finished includes canceled ones) */
  ran: number;
  openIncidents: number;
  avgMillis: number | null;
  maxMillis: number | null;
  /** 0..1, relative to the activity that ran most */
  level: number;
}

export function heatData(
  statistics: HistoricActivityStatistics[],
  durations: ActivityDuration[] | null,
): Heat[] {
  const durationOf = new Map((durations ?? []).map((d) => [d.activityId, d]));
  const rows = new Map<string, Heat>();
  for (const row of statistics) {
    const duration = durationOf.get(row.id);
    rows.set(row.id, {
      activityId: row.id,
      ran: row.instances + (row.finished ?? 0),
      openIncidents: row.openIncidents ?? 0,
      avgMillis: duration?.avgMillis ?? null,
      maxMillis: duration?.maxMillis ?? null,
      level: 0,
    });
  }
  // an activity only the durations know (statistics without finished counts) still shows
  for (const duration of durations ?? []) {
    if (!rows.has(duration.activityId)) {
      rows.set(duration.activityId, {
        activityId: duration.activityId,
        ran: duration.count,
        openIncidents: 0,
        avgMillis: duration.avgMillis,
        maxMillis: duration.maxMillis,
        level: 0,
      });
    }
  }
  const most = Math.max(0, ...[...rows.values()].map((h) => h.ran));
  for (const heat of rows.values()) heat.level = most ? heat.ran / most : 0;
  return [...rows.values()].filter((h) => h.ran > 0);
}

/** A warm color for a level, light enough that dark text on it keeps AA contrast. */
export function heatColor(level: number): string {
  const clamped = Math.min(1, Math.max(0, level));
  // from pale yellow (hue 55) to light red (hue 0), lightness 85% → 72%
  const hue = Math.round(55 - 55 * clamped);
  const lightness = Math.round(85 - 13 * clamped);
  return `hsl(${hue} 100% ${lightness}%)`;
}
