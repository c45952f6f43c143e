import { describe, expect, it } from "vitest";
import { badgeData, heatColor, heatData } from "./badges";
import { formatDuration, formatTime } from "./format";

describe("badges", () => {
  it("puts running and incident counts on their activity, dropping empty ones", () => {
    const badges = badgeData([
      { id: "approve", instances: 3, failedJobs: 0, incidents: [] },
      {
        id: "book",
        instances: 2,
        failedJobs: 2,
        incidents: [
          { incidentType: "failedJob", incidentCount: 1 },
          { incidentType: "failedExternalTask", incidentCount: 1 },
        ],
      },
      { id: "done", instances: 0, incidents: [] },
    ]);
    expect(badges).toEqual([
      { activityId: "approve", running: 3, incidents: 0 },
      { activityId: "book", running: 2, incidents: 2 },
    ]);
  });

  it("shows an incident on an activity with no running count", () => {
    expect(
      badgeData([{ id: "x", instances: 0, incidents: [{ incidentType: "t", incidentCount: 4 }] }]),
    ).toEqual([{ activityId: "x", running: 0, incidents: 4 }]);
  });
});

describe("heat map", () => {
  it("counts running and finished activity instances, scaled to the busiest", () => {
    const heat = heatData(
      [
        { id: "a", instances: 1, finished: 9 },
        { id: "b", instances: 0, finished: 5, openIncidents: 1 },
        { id: "c", instances: 0, finished: 0 },
      ],
      [
        {
          activityId: "a",
          count: 10,
          finished: 9,
          avgMillis: 1500,
          minMillis: 10,
          maxMillis: 3000,
        },
      ],
    );
    expect(heat).toEqual([
      { activityId: "a", ran: 10, openIncidents: 0, avgMillis: 1500, maxMillis: 3000, level: 1 },
      { activityId: "b", ran: 5, openIncidents: 1, avgMillis: null, maxMillis: null, level: 0.5 },
    ]);
  });

  it("works without the durations extension", () => {
    expect(heatData([{ id: "a", instances: 2 }], null)[0]?.ran).toBe(2);
  });

  it("goes from yellow to red", () => {
    expect(heatColor(0)).toBe("hsl(55 100% 85%)");
    expect(heatColor(1)).toBe("hsl(0 100% 72%)");
    expect(heatColor(7)).toBe(heatColor(1));
  });
});

describe("format", () => {
  it("reads Camunda dates and durations", () => {
    expect(formatTime("2026-12-06T19:47:09.028+0000")).toBe("2026-12-06 19:47:09");
    expect(formatTime(null)).toBe("—");
    expect(formatDuration(250)).toBe("250 ms");
    expect(formatDuration(1500)).toBe("1.5 s");
    expect(formatDuration(90_000)).toBe("1.5 min");
  });
});
