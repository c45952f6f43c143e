// Repairing an instance as Camunda's cockpit does: the instructions an operator queues for a
// process instance modification (what each activity allows, how each reads, the request body),
// the activity instances one cancel may pick from, and finding the instance a restart made.
import type {
  ModificationInstruction as Instruction,
  ProcessInstanceModification,
  RestartProcessInstance,
} from "../api/extensions";
import type { components } from "../api/schema";

type ActivityInstanceTree = components["schemas"]["ActivityInstanceDto"];

export type { Instruction };

export interface ModificationOptions {
  annotation: string;
  skipCustomListeners: boolean;
  skipIoMappings: boolean;
}

/** A running instance of an activity: an activity instance, or a token waiting before it for
 * its asynchronous continuation (a transition instance). */
export interface RunningInstance {
  kind: "activity" | "transition";
  id: string;
  /** where it runs: the names of the activity instances above it, outermost first */
  path: string[];
}

/** Every running instance of `activityId` in the tree, in the tree's order. */
export function runningInstancesOf(tree: ActivityInstanceTree | null, activityId: string): RunningInstance[] {
  const found: RunningInstance[] = [];
  const walk = (node: ActivityInstanceTree, path: string[]) => {
    const here = [...path, node.activityName ?? node.activityId];
    for (const child of node.childActivityInstances) {
      if (child.activityId === activityId) found.push({ kind: "activity", id: child.id, path: here });
      walk(child, here);
    }
    for (const transition of node.childTransitionInstances) {
      if (transition.activityId === activityId) found.push({ kind: "transition", id: transition.id, path: here });
    }
  };
  if (tree) walk(tree, []);
  return found;
}

/** The activity an activity instance or transition instance of the tree belongs to. */
export function activityOfInstance(tree: ActivityInstanceTree | null, instanceId: string): string | null {
  if (!tree) return null;
  for (const transition of tree.childTransitionInstances) {
    if (transition.id === instanceId) return transition.activityId;
  }
  for (const child of tree.childActivityInstances) {
    if (child.id === instanceId) return child.activityId;
    const found = activityOfInstance(child, instanceId);
    if (found) return found;
  }
  return null;
}

/** A queued instruction as the diagram marks it on its activity, before it is applied. */
export interface PendingMark {
  /** "+" start before, "→" start after, "✕" cancel, in the queue's order */
  text: string;
  /** the same in words, for the mark's title and screen readers */
  title: string;
}

const PENDING = {
  startBeforeActivity: ["+", "start before"],
  startAfterActivity: ["→", "start after"],
  cancel: ["✕", "cancel"],
} as const;

/** Activity id → what the queue will do there. */
export function pendingMarks(queue: Instruction[], tree: ActivityInstanceTree | null): Map<string, PendingMark> {
  const at = new Map<string, [string, string][]>();
  for (const instruction of queue) {
    const activityId =
      "activityId" in instruction
        ? instruction.activityId
        : activityOfInstance(tree, "activityInstanceId" in instruction ? instruction.activityInstanceId : instruction.transitionInstanceId);
    if (!activityId) continue;
    const list = at.get(activityId) ?? [];
    list.push([...PENDING[instruction.type]]);
    at.set(activityId, list);
  }
  const marks = new Map<string, PendingMark>();
  for (const [activityId, list] of at) {
    marks.set(activityId, {
      text: list.map(([text]) => text).join(""),
      title: `queued: ${list.map(([, words]) => words).join(", ")}`,
    });
  }
  return marks;
}

/** What an operator may queue for an activity: start after needs exactly one way out (Camunda
 * refuses it otherwise); cancel needs something running there. */
export interface ActivityActions {
  startBefore: boolean;
  startAfter: boolean;
  cancel: boolean;
}

export function actionsFor(outgoingFlows: number, running: number): ActivityActions {
  return { startBefore: true, startAfter: outgoingFlows === 1, cancel: running > 0 };
}

/** Queue `instruction` unless the same one is queued already (a double click). */
export function enqueue(queue: Instruction[], instruction: Instruction): Instruction[] {
  const key = JSON.stringify(instruction);
  return queue.some((queued) => JSON.stringify(queued) === key) ? queue : [...queue, instruction];
}

/** The instruction as the list of queued ones reads it. */
export function describeInstruction(instruction: Instruction, names: Map<string, string>): string {
  const name = (id: string) => names.get(id) ?? id;
  if (instruction.type === "startBeforeActivity") return `Start before “${name(instruction.activityId)}”`;
  if (instruction.type === "startAfterActivity") return `Start after “${name(instruction.activityId)}”`;
  if ("activityId" in instruction) return `Cancel every instance of “${name(instruction.activityId)}”`;
  if ("activityInstanceId" in instruction) return `Cancel activity instance ${instruction.activityInstanceId}`;
  return `Cancel the waiting continuation ${instruction.transitionInstanceId}`;
}

/** The body Camunda's endpoint takes; an empty annotation is left out. */
export function modificationBody(queue: Instruction[], options: ModificationOptions): ProcessInstanceModification {
  const annotation = options.annotation.trim();
  return {
    skipCustomListeners: options.skipCustomListeners,
    skipIoMappings: options.skipIoMappings,
    ...(annotation ? { annotation } : {}),
    instructions: queue,
  };
}

// -- restart ----------------------------------------------------------------------------------

export interface RestartOptions {
  initialVariables: boolean;
  withoutBusinessKey: boolean;
  skipCustomListeners: boolean;
  skipIoMappings: boolean;
}

/** POST /process-definition/{id}/restart for one ended instance, started before `activityId`. */
export function restartBody(instanceId: string, activityId: string, options: RestartOptions): RestartProcessInstance {
  return {
    processInstanceIds: [instanceId],
    instructions: [{ type: "startBeforeActivity", activityId }],
    ...options,
  };
}

export interface StartedInstance {
  id: string;
  restartedProcessInstanceId?: string | null;
}

/** The instance a restart of `oldId` made, among the definition's instances newest first
 * (`after`): the one that names `oldId` as its restarted instance, where the server tells;
 * else the newest one that was not there before the restart (`before`). */
export function pickRestarted(after: StartedInstance[], before: StartedInstance[], oldId: string): string | null {
  const named = after.find((i) => i.restartedProcessInstanceId === oldId);
  if (named) return named.id;
  const known = new Set(before.map((i) => i.id));
  known.add(oldId);
  return after.find((i) => !known.has(i.id))?.id ?? null;
}

// -- the timeline -----------------------------------------------------------------------------

/** The line of an operator's modification without the instructions the server appended to it
 * (`instance modified (skipping IO mappings): A; B`): the timeline lists those one by one. */
export function repairHeadline(what: string, instructions: string[]): string {
  const tail = `: ${instructions.join("; ")}`;
  return instructions.length > 0 && what.endsWith(tail) ? what.slice(0, -tail.length) : what;
}
