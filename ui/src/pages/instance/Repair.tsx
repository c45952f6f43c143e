// Repairing an instance from its page, as Camunda's cockpit does: on a running instance, queue
// "start before / start after / cancel" instructions for activities chosen on the diagram and
// send them as one modification; on an ended one, restart it before a chosen activity.
import { useEffect, useMemo, useState } from "preact/hooks";
import { api, type ActivityInstance, type HistoricProcessInstance } from "../../api";
import { type Data, errorText, isNotAvailable, Problem, useData } from "../../components/common";
import { shortId } from "../../lib/format";
import {
  actionsFor,
  describeInstruction,
  enqueue,
  modificationBody,
  pendingMarks,
  pickRestarted,
  restartBody,
  runningInstancesOf,
  type Instruction,
  type PendingMark,
} from "../../lib/modification";
import { paths } from "../../lib/routes";
import { Link } from "../../router";
import { ApiError } from "../../api/http";

/** The server's answer when a repair failed: Camunda's `{type, message}` as a sentence; a
 * server without the endpoint says so, as every page does. Nothing changed on the server. */
function Refusal({ error, what, failed, testId }: { error: unknown; what: string; failed: string; testId: string }) {
  if (isNotAvailable(error)) {
    return (
      <p class="notice" role="alert" data-testid="not-available">
        {what} is not available on this server yet.
      </p>
    );
  }
  const reason =
    error instanceof ApiError && error.type && error.status < 500 ? `${error.message} (${error.type})` : errorText(error);
  return (
    <p class="error" role="alert" data-testid={testId}>
      {failed}: {reason}
    </p>
  );
}

/** Camunda's skipCustomListeners and skipIoMappings, as both repair forms offer them. */
function SkipChecks({
  listeners,
  setListeners,
  mappings,
  setMappings,
}: {
  listeners: boolean;
  setListeners: (value: boolean) => void;
  mappings: boolean;
  setMappings: (value: boolean) => void;
}) {
  return (
    <>
      <label class="check">
        <input type="checkbox" checked={listeners} onChange={(e) => setListeners(e.currentTarget.checked)} />
        Skip custom listeners
      </label>
      <label class="check">
        <input type="checkbox" checked={mappings} onChange={(e) => setMappings(e.currentTarget.checked)} />
        Skip IO mappings
      </label>
    </>
  );
}

function ActivityChooser({
  id,
  label,
  names,
  value,
  onChange,
}: {
  id: string;
  label: string;
  names: Map<string, string>;
  value: string | null;
  onChange: (activityId: string) => void;
}) {
  return (
    <div class="field">
      <label for={id}>{label}</label>
      <select id={id} value={value ?? ""} onChange={(e) => e.currentTarget.value && onChange(e.currentTarget.value)}>
        <option value="">choose on the diagram or here…</option>
        {[...names].map(([activityId, name]) => (
          <option key={activityId} value={activityId}>
            {name === activityId ? name : `${name} (${activityId})`}
          </option>
        ))}
      </select>
    </div>
  );
}

/** The modification being put together: the instance's activity-instance tree (read again
 * whenever the instance changed), the queued instructions and what the diagram marks for them. */
export interface Modification {
  tree: Data<ActivityInstance | null>;
  queue: Instruction[];
  setQueue: (change: (queue: Instruction[]) => Instruction[]) => void;
  pending: Map<string, PendingMark>;
}

export function useModification(id: string, version: number, running: boolean): Modification {
  const tree = useData(() => (running ? api.activityTree(id) : Promise.resolve(null)), [id, version, running]);
  const [queue, setQueue] = useState<Instruction[]>([]);
  const pending = useMemo(() => pendingMarks(queue, tree.data ?? null), [queue, tree.data]);
  return { tree, queue, setQueue, pending };
}

export function ModifyPanel({
  id,
  modification,
  activityId,
  names,
  outgoing,
  onSelect,
  onExplain,
  onModified,
}: {
  id: string;
  modification: Modification;
  activityId: string | null;
  names: Map<string, string>;
  outgoing: Map<string, number>;
  onSelect: (activityId: string) => void;
  onExplain: (activityId: string) => void;
  onModified: (message: string) => void;
}) {
  const { tree, queue, setQueue } = modification;
  const [annotation, setAnnotation] = useState("");
  const [skipCustomListeners, setSkipCustomListeners] = useState(false);
  const [skipIoMappings, setSkipIoMappings] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const running = useMemo(
    () => (activityId ? runningInstancesOf(tree.data ?? null, activityId) : []),
    [tree.data, activityId],
  );
  const [picked, setPicked] = useState<string>("");
  useEffect(() => setPicked(running[0]?.id ?? ""), [running]);
  const actions = actionsFor(activityId ? (outgoing.get(activityId) ?? 0) : 0, running.length);
  const name = activityId ? (names.get(activityId) ?? activityId) : null;
  const add = (instruction: Instruction) => {
    setProblem(null);
    setQueue((q) => enqueue(q, instruction));
  };

  const submit = async (event: Event) => {
    event.preventDefault();
    if (queue.length === 0) return;
    setProblem(null);
    setSending(true);
    try {
      await api.modify(id, modificationBody(queue, { annotation, skipCustomListeners, skipIoMappings }));
      const done = queue.length;
      setQueue(() => []);
      setAnnotation("");
      onModified(`Instance modified: ${done} instruction${done === 1 ? "" : "s"} applied`);
    } catch (error) {
      // nothing changed on the server (a modification is one command): the queue stays to fix
      setProblem(error);
    } finally {
      setSending(false);
    }
  };

  const pickedOne = running.find((r) => r.id === picked);
  return (
    <section class="card repair" aria-labelledby="modify-heading" data-testid="modify-panel">
      <h2 id="modify-heading">Modify the instance</h2>
      <p class="muted">
        Click an activity on the diagram (or choose it below) to start a token before or after it, or to cancel what
        runs there. Queue as many instructions as you need: they are applied together, in this order, as one change
        recorded with your name and annotation.
      </p>
      <div class="repair-columns">
        <div>
          <ActivityChooser id="modify-activity" label="Activity" names={names} value={activityId} onChange={onSelect} />
          {activityId && (
            <div data-testid="activity-actions">
              <p>
                <strong>{name}</strong>{" "}
                <span class="muted" data-testid="running-count">
                  {tree.data === undefined
                    ? "(reading what runs there…)"
                    : running.length === 0
                      ? "— nothing runs here"
                      : `— ${running.length} running here`}
                </span>
              </p>
              {tree.error !== undefined && <Problem error={tree.error} what="the activity-instance tree" />}
              <div class="toolbar">
                <button type="button" onClick={() => add({ type: "startBeforeActivity", activityId })}>
                  Start before
                </button>
                {actions.startAfter && (
                  <button type="button" onClick={() => add({ type: "startAfterActivity", activityId })}>
                    Start after
                  </button>
                )}
                {actions.cancel && (
                  <button type="button" class="danger" onClick={() => add({ type: "cancel", activityId })}>
                    {running.length === 1 ? "Cancel" : `Cancel all ${running.length}`}
                  </button>
                )}
                <button type="button" onClick={() => onExplain(activityId)}>
                  Why is it here?
                </button>
              </div>
              {running.length > 1 && (
                <div class="toolbar">
                  <label for="modify-instance">Or cancel one of them</label>
                  <select id="modify-instance" value={picked} onChange={(e) => setPicked(e.currentTarget.value)}>
                    {running.map((r) => (
                      <option key={r.id} value={r.id}>
                        {r.kind === "transition" ? "waiting continuation" : "activity instance"} {shortId(r.id)} in{" "}
                        {r.path.join(" › ")}
                      </option>
                    ))}
                  </select>
                  <button
                    type="button"
                    class="danger"
                    disabled={!pickedOne}
                    onClick={() =>
                      pickedOne &&
                      add(
                        pickedOne.kind === "transition"
                          ? { type: "cancel", transitionInstanceId: pickedOne.id }
                          : { type: "cancel", activityInstanceId: pickedOne.id },
                      )
                    }
                  >
                    Cancel this one
                  </button>
                </div>
              )}
            </div>
          )}
        </div>
        <form onSubmit={submit} aria-labelledby="modify-queue-heading">
          <h3 id="modify-queue-heading">Instructions to apply</h3>
          {queue.length === 0 ? (
            <p class="muted" data-testid="modification-queue-empty">
              None queued yet.
            </p>
          ) : (
            <ol data-testid="modification-queue">
              {queue.map((instruction, n) => (
                <li key={JSON.stringify(instruction)}>
                  {describeInstruction(instruction, names)}{" "}
                  <button
                    type="button"
                    class="small"
                    onClick={() => setQueue((q) => q.filter((_, i) => i !== n))}
                    aria-label={`Remove: ${describeInstruction(instruction, names)}`}
                  >
                    Remove
                  </button>
                </li>
              ))}
            </ol>
          )}
          <div class="field">
            <label for="modify-annotation">Annotation</label>
            <textarea
              id="modify-annotation"
              rows={2}
              value={annotation}
              onInput={(e) => setAnnotation(e.currentTarget.value)}
              aria-describedby="modify-annotation-hint"
            />
            <p class="hint" id="modify-annotation-hint">
              Why you change the instance: kept with the change in its log and operation log.
            </p>
          </div>
          <div class="toolbar">
            <SkipChecks
              listeners={skipCustomListeners}
              setListeners={setSkipCustomListeners}
              mappings={skipIoMappings}
              setMappings={setSkipIoMappings}
            />
          </div>
          {problem !== null && (
            <Refusal error={problem} what="Modification" failed="The instance was not modified" testId="modify-error" />
          )}
          <div class="toolbar">
            <button type="submit" class="primary" disabled={queue.length === 0 || sending} data-testid="modify-submit">
              {sending ? "Applying…" : `Apply ${queue.length} instruction${queue.length === 1 ? "" : "s"}`}
            </button>
            {queue.length > 0 && (
              <button type="button" onClick={() => setQueue(() => [])}>
                Clear
              </button>
            )}
          </div>
        </form>
      </div>
    </section>
  );
}

const NEWEST = { sortBy: "startTime", sortOrder: "desc", maxResults: 50 } as const;

export function RestartPanel({
  instance,
  activityId,
  startEvent,
  names,
  onSelect,
}: {
  instance: HistoricProcessInstance;
  /** the activity chosen on the diagram, if any */
  activityId: string | null;
  /** where a restart begins unless another activity is chosen */
  startEvent: string | null;
  names: Map<string, string>;
  onSelect: (activityId: string) => void;
}) {
  const [initialVariables, setInitialVariables] = useState(false);
  const [withoutBusinessKey, setWithoutBusinessKey] = useState(false);
  const [skipCustomListeners, setSkipCustomListeners] = useState(false);
  const [skipIoMappings, setSkipIoMappings] = useState(false);
  const [problem, setProblem] = useState<unknown>(null);
  const [sending, setSending] = useState(false);
  const [restarted, setRestarted] = useState<{ id: string | null } | null>(null);
  const from = activityId ?? startEvent;
  const definitionId = instance.processDefinitionId;

  const submit = async (event: Event) => {
    event.preventDefault();
    if (!from) return;
    setProblem(null);
    setSending(true);
    try {
      const query = { processDefinitionId: definitionId, ...NEWEST };
      const before = await api.historicInstances(query);
      await api.restart(
        definitionId,
        restartBody(instance.id, from, { initialVariables, withoutBusinessKey, skipCustomListeners, skipIoMappings }),
      );
      const after = await api.historicInstances(query);
      setRestarted({ id: pickRestarted(after, before, instance.id) });
    } catch (error) {
      setProblem(error);
    } finally {
      setSending(false);
    }
  };

  return (
    <section class="card repair" aria-labelledby="restart-heading" data-testid="restart-panel">
      <h2 id="restart-heading">Restart the instance</h2>
      <p class="muted">
        Starts a new instance of the same definition version before the chosen activity (click it on the diagram),
        with this instance's last variables, or the ones it started with.
      </p>
      <form onSubmit={submit}>
        <ActivityChooser id="restart-activity" label="Start before" names={names} value={from} onChange={onSelect} />
        <div class="toolbar">
          <label class="check">
            <input
              type="checkbox"
              checked={initialVariables}
              onChange={(e) => setInitialVariables(e.currentTarget.checked)}
            />
            Use the variables it started with (not its last ones)
          </label>
          <label class="check">
            <input
              type="checkbox"
              checked={withoutBusinessKey}
              onChange={(e) => setWithoutBusinessKey(e.currentTarget.checked)}
            />
            Without business key
          </label>
          <SkipChecks
            listeners={skipCustomListeners}
            setListeners={setSkipCustomListeners}
            mappings={skipIoMappings}
            setMappings={setSkipIoMappings}
          />
        </div>
        {problem !== null && (
          <Refusal error={problem} what="Restart" failed="The instance was not restarted" testId="restart-error" />
        )}
        <div class="toolbar">
          <button type="submit" class="primary" disabled={!from || sending} data-testid="restart-submit">
            {sending ? "Restarting…" : "Restart"}
          </button>
        </div>
      </form>
      {restarted && (
        <p class="flash" role="status" data-testid="restarted">
          Restarted.{" "}
          {restarted.id ? (
            <Link href={paths.instance(restarted.id)} data-testid="restarted-instance">
              Open the new instance {shortId(restarted.id)}
            </Link>
          ) : (
            <Link href={`/cockpit/instances?definitionKey=${encodeURIComponent(instance.processDefinitionKey ?? "")}`}>
              Find the new instance among the definition's instances
            </Link>
          )}
        </p>
      )}
    </section>
  );
}
