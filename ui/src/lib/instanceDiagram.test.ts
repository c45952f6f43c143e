import { describe, expect, it } from "vitest";
import type { InstanceView, TimelineEntry } from "../api/extensions";
import { instanceMarks, trailFromTimeline, whyPosition } from "./instanceDiagram";

const entry = (position: number, activityId: string | null, what: string): TimelineEntry => ({
  position,
  time: "2026-12-06T10:00:00.000+0000",
  activityId,
  activityName: null,
  what,
  actor: null,
  via: null,
  commandType: "X",
  variables: {},
  chain: "verified",
  annotation: null,
  instructions: [],
});

const timeline = [
  entry(1, null, "instance started"),
  entry(2, "start", "startEvent started"),
  entry(3, "start", "completed"),
  entry(4, "check", "scriptTask started"),
  entry(5, "check", "completed"),
  entry(6, "approve", "userTask started"),
  entry(9, "approve", "completed"),
  entry(10, "check", "scriptTask started"),
];

function view(activities: [string, string, string][], incidents: (string | null)[] = []): InstanceView {
  return {
    id: "pi",
    definitionId: "d",
    definitionKey: "k",
    definitionVersion: 1,
    businessKey: null,
    status: "ACTIVE",
    suspended: false,
    startTime: "",
    endTime: null,
    endActivityId: null,
    events: 1,
    activities: activities.map(([activityInstanceId, activityId, parent]) => ({
      activityInstanceId,
      activityId,
      activityName: null,
      activityType: "userTask",
      executionId: "e",
      parentActivityInstanceId: parent,
      startTime: "",
    })),
    tasks: [],
    variables: [],
    jobs: [],
    externalTasks: [],
    subscriptions: [],
    incidents: incidents.map((activityId, i) => ({ id: `i${i}`, incidentType: "failedJob", activityId, message: null })),
    calledInstances: {},
  };
}

describe("instance diagram marks", () => {
  it("puts tokens on the innermost active activities and counts incidents", () => {
    const marks = instanceMarks(
      view([
        ["sub:1", "sub", "pi"],
        ["a:1", "approve", "sub:1"],
        ["a:2", "approve", "sub:1"],
      ], ["approve", null]),
      null,
    );
    expect([...marks.tokens]).toEqual([["approve", 2]]);
    expect([...marks.incidents]).toEqual([["approve", 1]]);
  });

  it("marks passed activities and taken flows from the trail, a current visit not counted", () => {
    const marks = instanceMarks(view([["a:1", "approve", "pi"]]), {
      position: 9,
      activities: [
        { activityId: "start", count: 1, active: false },
        { activityId: "approve", count: 1, active: true },
        { activityId: "check", count: 2, active: false },
      ],
      sequenceFlows: ["f1", "f2"],
    });
    expect([...marks.passed]).toEqual([
      ["start", 1],
      ["check", 2],
    ]);
    expect([...marks.flows]).toEqual(["f1", "f2"]);
  });

  it("reads passed activities from the timeline without the trail endpoint", () => {
    const trail = trailFromTimeline(timeline, 6);
    expect(trail.activities.map((a) => [a.activityId, a.count])).toEqual([
      ["start", 1],
      ["check", 1],
      ["approve", 1],
    ]);
    expect(trailFromTimeline(timeline, 3).activities.map((a) => a.activityId)).toEqual(["start"]);
  });

  it("explains an activity by its latest start at or before the position", () => {
    expect(whyPosition(timeline, "check", 9)).toBe(4);
    expect(whyPosition(timeline, "check", 99)).toBe(10);
    expect(whyPosition(timeline, "approve", 5)).toBeNull();
  });
});
