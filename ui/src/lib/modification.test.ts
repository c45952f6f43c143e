import { describe, expect, it } from "vitest";
import type { components } from "../api/schema";
import {
  activityOfInstance,
  actionsFor,
  describeInstruction,
  enqueue,
  modificationBody,
  pendingMarks,
  pickRestarted,
  repairHeadline,
  restartBody,
  runningInstancesOf,
  type Instruction,
} from "./modification";

type Node = components["schemas"]["ActivityInstanceDto"];

function node(id: string, activityId: string, children: Node[] = [], waiting: string[] = []): Node {
  return {
    id,
    activityId,
    activityName: activityId === "invoice" ? "Invoice" : activityId.toUpperCase(),
    activityType: "userTask",
    childActivityInstances: children,
    childTransitionInstances: waiting.map((t) => ({
      id: `${t}-transition`,
      activityId: t,
      activityName: null,
      activityType: "serviceTask",
      executionId: "x",
      incidentIds: [],
      incidents: [],
      parentActivityInstanceId: id,
      processDefinitionId: "invoice:1",
      processInstanceId: "pi",
    })),
    executionIds: [],
    incidentIds: [],
    incidents: [],
    parentActivityInstanceId: null,
    processDefinitionId: "invoice:1",
    processInstanceId: "pi",
  };
}

const tree = node("pi", "invoice", [
  node("review:1", "review"),
  node("sub:1", "sub", [node("review:2", "review")], ["book"]),
]);

describe("running instances of an activity", () => {
  it("finds every activity instance, nested ones with where they run", () => {
    expect(runningInstancesOf(tree, "review")).toEqual([
      { kind: "activity", id: "review:1", path: ["Invoice"] },
      { kind: "activity", id: "review:2", path: ["Invoice", "SUB"] },
    ]);
  });

  it("finds a token waiting for its asynchronous continuation as a transition instance", () => {
    expect(runningInstancesOf(tree, "book")).toEqual([
      { kind: "transition", id: "book-transition", path: ["Invoice", "SUB"] },
    ]);
  });

  it("finds nothing where no token is, nor in an ended instance", () => {
    expect(runningInstancesOf(tree, "approve")).toEqual([]);
    expect(runningInstancesOf(null, "review")).toEqual([]);
  });
});

describe("actions of an activity", () => {
  it("offers start after only for exactly one outgoing flow", () => {
    expect(actionsFor(1, 0).startAfter).toBe(true);
    expect(actionsFor(0, 0).startAfter).toBe(false);
    expect(actionsFor(2, 0).startAfter).toBe(false);
  });

  it("offers cancel only where something runs, start before always", () => {
    expect(actionsFor(1, 0)).toEqual({ startBefore: true, startAfter: true, cancel: false });
    expect(actionsFor(1, 2).cancel).toBe(true);
  });
});

describe("the queue", () => {
  it("keeps the order and drops an instruction queued twice", () => {
    let queue: Instruction[] = [];
    queue = enqueue(queue, { type: "startBeforeActivity", activityId: "approve" });
    queue = enqueue(queue, { type: "cancel", activityId: "review" });
    queue = enqueue(queue, { type: "startBeforeActivity", activityId: "approve" });
    expect(queue).toEqual([
      { type: "startBeforeActivity", activityId: "approve" },
      { type: "cancel", activityId: "review" },
    ]);
  });

  it("reads each instruction with the activity's name", () => {
    const names = new Map([["approve", "Approve invoice"]]);
    expect(describeInstruction({ type: "startBeforeActivity", activityId: "approve" }, names)).toBe(
      "Start before “Approve invoice”",
    );
    expect(describeInstruction({ type: "startAfterActivity", activityId: "approve" }, names)).toBe(
      "Start after “Approve invoice”",
    );
    expect(describeInstruction({ type: "cancel", activityId: "review" }, names)).toBe(
      "Cancel every instance of “review”",
    );
    expect(describeInstruction({ type: "cancel", activityInstanceId: "review:2" }, names)).toBe(
      "Cancel activity instance review:2",
    );
    expect(describeInstruction({ type: "cancel", transitionInstanceId: "t1" }, names)).toBe(
      "Cancel the waiting continuation t1",
    );
  });
});

describe("the request bodies", () => {
  it("is Camunda's modification body, the annotation trimmed", () => {
    const queue: Instruction[] = [
      { type: "startBeforeActivity", activityId: "approve" },
      { type: "cancel", activityInstanceId: "review:1" },
    ];
    expect(
      modificationBody(queue, { annotation: "  stuck since Friday ", skipCustomListeners: true, skipIoMappings: false }),
    ).toEqual({
      skipCustomListeners: true,
      skipIoMappings: false,
      annotation: "stuck since Friday",
      instructions: queue,
    });
  });

  it("leaves an empty annotation out", () => {
    const body = modificationBody([], { annotation: "  ", skipCustomListeners: false, skipIoMappings: false });
    expect("annotation" in body).toBe(false);
  });

  it("restarts one instance before the chosen activity", () => {
    expect(
      restartBody("old", "start", {
        initialVariables: true,
        withoutBusinessKey: false,
        skipCustomListeners: false,
        skipIoMappings: true,
      }),
    ).toEqual({
      processInstanceIds: ["old"],
      instructions: [{ type: "startBeforeActivity", activityId: "start" }],
      initialVariables: true,
      withoutBusinessKey: false,
      skipCustomListeners: false,
      skipIoMappings: true,
    });
  });
});

describe("the instance a restart made", () => {
  it("is the one naming the old instance as restarted, where the server says so", () => {
    const after = [
      { id: "someone-elses", restartedProcessInstanceId: null },
      { id: "new", restartedProcessInstanceId: "old" },
    ];
    expect(pickRestarted(after, [], "old")).toBe("new");
  });

  it("else is the newest instance that was not there before", () => {
    const before = [{ id: "b" }, { id: "a" }];
    expect(pickRestarted([{ id: "new" }, { id: "b" }, { id: "a" }], before, "old")).toBe("new");
    expect(pickRestarted([{ id: "b" }, { id: "a" }], before, "old")).toBeNull();
    expect(pickRestarted([{ id: "old" }], [], "old")).toBeNull();
  });
});

describe("a modification in the timeline", () => {
  it("heads its line without the instructions it lists below", () => {
    const instructions = ["Start before activity 'approve'", "Cancel all 'review'"];
    expect(
      repairHeadline(
        "instance modified (skipping IO mappings): Start before activity 'approve'; Cancel all 'review'",
        instructions,
      ),
    ).toBe("instance modified (skipping IO mappings)");
  });

  it("keeps a line it does not recognise whole", () => {
    expect(repairHeadline("instance modified", ["A"])).toBe("instance modified");
    expect(repairHeadline("task completed", [])).toBe("task completed");
  });
});

describe("the queue on the diagram", () => {
  it("finds the activity of an activity or transition instance anywhere in the tree", () => {
    expect(activityOfInstance(tree, "review:2")).toBe("review");
    expect(activityOfInstance(tree, "book-transition")).toBe("book");
    expect(activityOfInstance(tree, "gone")).toBeNull();
  });

  it("marks each activity with what the queue will do there, in order", () => {
    const marks = pendingMarks(
      [
        { type: "startBeforeActivity", activityId: "approve" },
        { type: "cancel", activityInstanceId: "review:2" },
        { type: "startAfterActivity", activityId: "approve" },
        { type: "cancel", transitionInstanceId: "book-transition" },
      ],
      tree,
    );
    expect(Object.fromEntries(marks)).toEqual({
      approve: { text: "+→", title: "queued: start before, start after" },
      review: { text: "✕", title: "queued: cancel" },
      book: { text: "✕", title: "queued: cancel" },
    });
  });

  it("leaves out a cancel of an instance the tree no longer holds", () => {
    expect(pendingMarks([{ type: "cancel", activityInstanceId: "gone" }], tree).size).toBe(0);
  });
});
