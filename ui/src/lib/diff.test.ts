import { describe, expect, it } from "vitest";
import type { Change, InstanceDiff } from "../api/extensions";
import { splitVariableKey, summarizeDiff } from "./diff";

function diffOf(changes: Change[]): InstanceDiff {
  return {
    from: { position: 10, recordedAt: null },
    to: { position: 20, recordedAt: null },
    changes,
  };
}

const variable = (name: string, value: unknown, type = "String") => ({
  id: `v-${name}`,
  name,
  type,
  value,
  scope: "process instance",
});

describe("diff summary", () => {
  it("groups variables by what happened to them", () => {
    const summary = summarizeDiff(
      diffOf([
        {
          section: "variables",
          key: "process instance/approved",
          kind: "added",
          before: null,
          after: variable("approved", true, "Boolean"),
        },
        {
          section: "variables",
          key: "process instance/amount",
          kind: "changed",
          before: { value: 100 },
          after: { value: 200 },
        },
        {
          section: "variables",
          key: "process instance/tmp",
          kind: "removed",
          before: variable("tmp", "x"),
          after: null,
        },
      ]),
    );
    expect(summary.variables.added).toEqual([
      { scope: "process instance", name: "approved", after: true, type: "Boolean" },
    ]);
    expect(summary.variables.changed).toEqual([
      { scope: "process instance", name: "amount", before: 100, after: 200, type: undefined },
    ]);
    expect(summary.variables.removed.map((v) => v.name)).toEqual(["tmp"]);
    expect(summary.variables.keptAtEnd).toEqual([]);
    expect(summary.empty).toBe(false);
  });

  it("does not call a variable removed when the instance ended in between", () => {
    const summary = summarizeDiff(
      diffOf([
        {
          section: "instance",
          key: "pi",
          kind: "changed",
          before: { status: "ACTIVE", endTime: null },
          after: { status: "COMPLETED", endTime: "2026-12-06T10:00:00.000+0000" },
        },
        {
          section: "variables",
          key: "process instance/amount",
          kind: "removed",
          before: variable("amount", 5, "Integer"),
          after: null,
        },
      ]),
    );
    expect(summary.variables.removed).toEqual([]);
    expect(summary.variables.keptAtEnd.map((v) => [v.name, v.before])).toEqual([["amount", 5]]);
    expect(summary.instance).toEqual([
      { field: "status", before: "ACTIVE", after: "COMPLETED" },
      { field: "endTime", before: null, after: "2026-12-06T10:00:00.000+0000" },
    ]);
  });

  it("reports tokens that moved and tasks that came and went", () => {
    const summary = summarizeDiff(
      diffOf([
        {
          section: "activities",
          key: "approve:1",
          kind: "removed",
          before: { activityId: "approve", activityName: "Approve" },
          after: null,
        },
        {
          section: "activities",
          key: "book:2",
          kind: "added",
          before: null,
          after: { activityId: "book", activityName: null },
        },
        {
          section: "tasks",
          key: "t1",
          kind: "removed",
          before: { id: "t1", name: "Approve", taskDefinitionKey: "approve" },
          after: null,
        },
        { section: "jobs", key: "j1", kind: "added", before: null, after: { id: "j1" } },
      ]),
    );
    expect(summary.tokens).toEqual({
      left: [{ activityId: "approve", activityName: "Approve" }],
      entered: [{ activityId: "book", activityName: null }],
    });
    expect(summary.tasks).toEqual({
      came: [],
      went: [{ id: "t1", name: "Approve", taskDefinitionKey: "approve" }],
    });
    expect(summary.other.map((c) => c.section)).toEqual(["jobs"]);
  });

  it("says when nothing changed", () => {
    expect(summarizeDiff(diffOf([])).empty).toBe(true);
  });

  it("splits a variable key at the scope's end", () => {
    expect(splitVariableKey("process instance/a/b")).toEqual({
      scope: "process instance",
      name: "a/b",
    });
  });
});
