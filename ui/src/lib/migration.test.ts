import { describe, expect, it } from "vitest";
import {
  activityLabel,
  anyRunning,
  batchProgress,
  batchState,
  definitionLabel,
  describeMapping,
  executionBody,
  failuresBySource,
  hasEventTrigger,
  instruction,
  refusalOf,
  reportFails,
  unmappedRunning,
  withEventTrigger,
  withMapping,
  withTarget,
  withoutInstruction,
  type MigrationPlan,
} from "./migration";

const plan: MigrationPlan = {
  sourceProcessDefinitionId: "shipment:1",
  targetProcessDefinitionId: "shipment:2",
  instructions: [instruction("start", "start"), instruction("approve", "approve")],
};

describe("editing a plan", () => {
  it("changes a target, a trigger, removes and adds without touching the original", () => {
    expect(withTarget(plan, 1, "approve2").instructions[1]).toEqual(instruction("approve", "approve2"));
    expect(withEventTrigger(plan, 0, true).instructions[0]?.updateEventTrigger).toBe(true);
    expect(withoutInstruction(plan, 0).instructions).toEqual([instruction("approve", "approve")]);
    expect(withMapping(plan, "pack", "packParcel").instructions).toHaveLength(3);
    expect(plan.instructions).toHaveLength(2);
  });

  it("maps a source that has an instruction by changing its target (one instruction per source)", () => {
    const mapped = withMapping(plan, "approve", "other");
    expect(mapped.instructions).toEqual([instruction("start", "start"), instruction("approve", "other")]);
  });
});

describe("what the plan leaves behind", () => {
  it("lists the activities with running instances that no instruction maps", () => {
    const statistics = [
      { id: "pack", instances: 3 },
      { id: "approve", instances: 1 },
      { id: "idle", instances: 0 },
    ];
    expect(unmappedRunning(plan, statistics)).toEqual([{ activityId: "pack", instances: 3 }]);
    expect(unmappedRunning(withMapping(plan, "pack", "packParcel"), statistics)).toEqual([]);
  });

  it("puts each failure beside its instruction's source", () => {
    const report = {
      instructionReports: [
        { instruction: instruction("pack", "robot"), failures: ["Activities have incompatible types"] },
      ],
      variableReports: {},
    };
    expect(failuresBySource(report).get("pack")).toEqual(["Activities have incompatible types"]);
    expect(reportFails(report)).toBe(true);
    expect(reportFails({ instructionReports: [], variableReports: {} })).toBe(false);
    expect(
      reportFails({ instructionReports: [], variableReports: { x: { type: "Object", value: null, valueInfo: {}, failures: ["no Java"] } } }),
    ).toBe(true);
  });

  it("offers updateEventTrigger only where an event waits for a trigger", () => {
    expect(hasEventTrigger("boundaryEvent")).toBe(true);
    expect(hasEventTrigger("intermediateCatchEvent")).toBe(true);
    expect(hasEventTrigger("userTask")).toBe(false);
    expect(hasEventTrigger(undefined)).toBe(false);
  });

  it("names definitions and activities", () => {
    expect(definitionLabel({ key: "shipment", name: "Shipment", version: 2 })).toBe("Shipment v2");
    expect(definitionLabel({ key: "shipment", name: null, version: 3, versionTag: "2027" })).toBe("shipment v3 (2027)");
    expect(activityLabel(new Map([["pack", "Pack order"]]), "pack")).toBe("Pack order (pack)");
    expect(activityLabel(new Map(), "pack")).toBe("pack");
  });

  it("reads a mapping with the activities' names", () => {
    const names = new Map([["pack", "Pack order"]]);
    expect(describeMapping(instruction("pack", "packParcel"), names, new Map())).toBe(
      "Pack order (pack) → packParcel",
    );
    expect(describeMapping(null, names, names)).toBe("no instruction");
  });
});

describe("running it", () => {
  const options = { skipCustomListeners: false, skipIoMappings: true };

  it("migrates every running instance of the source by query, or the picked ones by id", () => {
    expect(executionBody(plan, { all: true }, options)).toEqual({
      migrationPlan: plan,
      processInstanceQuery: { processDefinitionId: "shipment:1" },
      skipCustomListeners: false,
      skipIoMappings: true,
    });
    const picked = executionBody(plan, { all: false, ids: ["a", "b"] }, options);
    expect(picked.processInstanceIds).toEqual(["a", "b"]);
    expect(picked.processInstanceQuery).toBeUndefined();
  });

  it("reads both of Camunda's refusals and nothing else", () => {
    const instance = refusalOf({
      type: "MigratingProcessInstanceValidationException",
      message: "ENGINE-23004 Cannot migrate process instance 'p1'",
      validationReport: {
        processInstanceId: "p1",
        failures: [],
        activityInstanceValidationReports: [
          {
            activityInstanceId: "pack:1",
            sourceScopeId: "pack",
            migrationInstruction: null,
            failures: ["There is no migration instruction for this instance's activity"],
          },
        ],
      },
    });
    expect(instance?.kind).toBe("instance");
    expect(instance?.kind === "instance" && instance.report.transitionInstanceValidationReports).toEqual([]);
    const planRefusal = refusalOf({
      type: "MigrationPlanValidationException",
      message: "ENGINE-23001 Migration plan is not valid",
      validationReport: { instructionReports: [{ instruction: instruction("a", "b"), failures: ["x"] }] },
    });
    expect(planRefusal?.kind === "plan" && planRefusal.report.instructionReports).toHaveLength(1);
    expect(refusalOf({ type: "InvalidRequestException", message: "no" })).toBeNull();
    expect(refusalOf(null)).toBeNull();
  });
});

describe("batches", () => {
  const batch = { totalJobs: 4, completedJobs: 1, failedJobs: 0, remainingJobs: 3, jobsCreated: 4, suspended: false };

  it("measures progress by completed jobs", () => {
    expect(batchProgress(batch)).toEqual({ completed: 1, failed: 0, total: 4, percent: 25 });
    expect(batchProgress({ ...batch, totalJobs: 0, completedJobs: 0 }).percent).toBe(0);
    expect(batchProgress({ ...batch, totalJobs: 3, completedJobs: 2 }).percent).toBe(66);
  });

  it("names what a batch is doing", () => {
    expect(batchState(batch)).toBe("running");
    expect(batchState({ ...batch, jobsCreated: 1 })).toBe("creating jobs");
    expect(batchState({ ...batch, failedJobs: 1 })).toBe("failing");
    expect(batchState({ ...batch, failedJobs: 3 })).toBe("stuck");
    expect(batchState({ ...batch, suspended: true, failedJobs: 1 })).toBe("suspended");
    expect(batchState({ ...batch, remainingJobs: 0 })).toBe("finishing");
    expect(anyRunning([{ ...batch, suspended: true }])).toBe(false);
    expect(anyRunning([{ ...batch, suspended: true }, batch])).toBe(true);
    // every remaining job failed: nothing moves until an operator retries them
    expect(anyRunning([{ ...batch, failedJobs: 3 }])).toBe(false);
    expect(anyRunning([{ ...batch, failedJobs: 2 }])).toBe(true);
    expect(anyRunning([{ ...batch, remainingJobs: 0 }])).toBe(true);
  });
});
