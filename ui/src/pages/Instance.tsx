// One process instance: its diagram with tokens, incidents, the activities it passed and the
// flows it took; the time slider that puts all of it back to any position of its log; diff and
// "why"; live tabs to act on it (variables, tasks, jobs, incidents, tree) and its timeline;
// repair: modify a running instance, restart an ended one (an activity chosen on the diagram).
import { useMemo, useState } from "preact/hooks";
import { api } from "../api";
import type { InstanceView } from "../api/extensions";
import { BpmnDiagram } from "../components/BpmnDiagram";
import { Flash, Problem, Show, errorText, useData, useTitle } from "../components/common";
import { formatTime, shortId } from "../lib/format";
import { instanceMarks, trailFromTimeline, whyPosition } from "../lib/instanceDiagram";
import { activityNames, initialStartEvent, outgoingFlowCounts } from "../lib/model";
import { paths } from "../lib/routes";
import { Link, navigate, useLocation } from "../router";
import { DiffView } from "./instance/DiffView";
import { LiveIncidents, LiveJobs, LiveTasks, LiveTree, LiveVariables } from "./instance/LiveTabs";
import { PastIncidents, PastJobs, PastTasks, PastTree, PastVariables } from "./instance/PastTabs";
import { ModifyPanel, RestartPanel, useModification } from "./instance/Repair";
import { Timeline } from "./instance/Timeline";
import { useTimeTravel } from "./instance/useTimeTravel";
import { WhyView } from "./instance/WhyView";
import { instanceHref } from "./instance/url";

const TABS = ["variables", "tasks", "jobs", "incidents", "timeline", "tree"] as const;
type Tab = (typeof TABS)[number];

function numberParam(text: string | null): number | null {
  if (text === null || !/^\d+$/.test(text)) return null;
  return Number(text);
}

export function Instance({ id }: { id: string }) {
  useTitle(`Instance ${shortId(id)}`);
  const location = useLocation();
  const tabParam = location.query.get("tab");
  const tab: Tab = (TABS as readonly string[]).includes(tabParam ?? "") ? (tabParam as Tab) : "variables";
  const urlPosition = numberParam(location.query.get("position"));
  const diffFrom = numberParam(location.query.get("diff"));
  const whyAt = numberParam(location.query.get("why"));
  // the activity chosen on the diagram: what "modify" and "restart" act on, in the URL so that
  // a reload or a shared link keeps it
  const selected = location.query.get("activity") || null;

  const [version, setVersion] = useState(0);
  const changed = () => setVersion((v) => v + 1);
  const history = useData(() => api.historicInstance(id), [id, version]);
  const live = useData(() => api.instance(id).catch(() => null), [id, version]);
  const timeline = useData(() => api.timeline(id), [id, version]);
  const children = useData(() => api.historicInstances({ superProcessInstanceId: id }), [id, version]);

  const positions = useMemo(() => (timeline.data ?? []).map((e) => e.position), [timeline.data]);
  const travel = useTimeTravel(id, positions, urlPosition);
  const past = !travel.following && travel.index < travel.last;
  const view = travel.at?.state.instance;
  // the diagram of the definition the instance ran on at the slider's position: a migrated
  // instance's past is drawn on the version it had then
  const definitionId = (past ? view?.definitionId : undefined) ?? history.data?.processDefinitionId;
  const xml = useData(
    () => (definitionId ? api.definitionXml(definitionId) : Promise.resolve(null)),
    [definitionId],
  );
  const names = useMemo(() => (xml.data ? activityNames(xml.data.bpmn20Xml) : new Map<string, string>()), [xml.data]);
  const outgoing = useMemo(
    () => (xml.data ? outgoingFlowCounts(xml.data.bpmn20Xml) : new Map<string, number>()),
    [xml.data],
  );
  const startEvent = useMemo(() => (xml.data ? initialStartEvent(xml.data.bpmn20Xml) : null), [xml.data]);

  const marks = useMemo(() => {
    if (!view || travel.position === null) return null;
    const trail = travel.at?.trail ?? trailFromTimeline(timeline.data ?? [], travel.position);
    return instanceMarks(view, trail);
  }, [view, travel.at, travel.position, timeline.data]);
  const ended = !!history.data?.endTime;
  const modification = useModification(id, version, !!history.data && !ended);
  const decorations = useMemo(
    () => ({
      tokens: marks?.tokens,
      incidents: marks?.incidents,
      passed: marks?.passed,
      flows: marks?.flows,
      selected,
      pending: past ? undefined : modification.pending,
    }),
    [marks, selected, past, modification.pending],
  );

  const setParams = (changes: Record<string, string | number | null>) =>
    navigate(instanceHref(id, changes), { replace: true });
  const select = (activityId: string) => setParams({ activity: activityId });
  const explain = (activityId: string) => {
    const at = whyPosition(timeline.data ?? [], activityId, travel.position ?? Number.MAX_SAFE_INTEGER);
    setParams({ activity: activityId, why: at });
  };

  const suspended = live.data?.suspended ?? false;
  const [flash, setFlash] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [confirmCancel, setConfirmCancel] = useState(false);
  const act = async (action: () => Promise<unknown>, done: string) => {
    setProblem(null);
    try {
      await action();
      setFlash(done);
      changed();
      travel.follow();
    } catch (error) {
      setProblem(errorText(error));
    }
  };

  const current = timeline.data?.[travel.index];
  const whyEntry = whyAt === null ? undefined : timeline.data?.find((e) => e.position === whyAt);

  return (
    <>
      <Show data={history} what="the instance">
        {(h) => (
          <>
            <div class="page-head">
              <h1>
                {h.processDefinitionName ?? h.processDefinitionKey}{" "}
                <span class="muted">{h.businessKey ?? shortId(h.id)}</span>
              </h1>
              <div class="toolbar">
                {!ended && (
                  <button
                    type="button"
                    disabled={past}
                    onClick={() =>
                      act(() => api.suspend(id, !suspended), suspended ? "Instance activated" : "Instance suspended")
                    }
                  >
                    {suspended ? "Activate" : "Suspend"}
                  </button>
                )}
                {!ended &&
                  (confirmCancel ? (
                    <>
                      <span>Cancel this instance for good?</span>
                      <button
                        type="button"
                        class="danger"
                        onClick={() => {
                          setConfirmCancel(false);
                          act(() => api.cancel(id), "Instance cancelled");
                        }}
                      >
                        Yes, cancel it
                      </button>
                      <button type="button" onClick={() => setConfirmCancel(false)}>
                        No
                      </button>
                    </>
                  ) : (
                    <button type="button" class="danger" disabled={past} onClick={() => setConfirmCancel(true)}>
                      Cancel instance…
                    </button>
                  ))}
                <a class="button" href={api.packageUrl(id)} download>
                  Export audit package
                </a>
              </div>
            </div>
            <Flash message={flash} />
            {problem && (
              <p class="error" role="alert">
                {problem}
              </p>
            )}
            <dl class="facts facts-inline card">
              <dt>Instance</dt>
              <dd>
                <code>{h.id}</code>
              </dd>
              <dt>Definition</dt>
              <dd>
                <Link href={paths.definition(h.processDefinitionId)}>
                  {h.processDefinitionKey} v{h.processDefinitionVersion ?? "?"}
                </Link>
              </dd>
              <dt>State</dt>
              <dd>
                <span class={`chip state-${h.state.toLowerCase()}`} data-testid="instance-state">
                  {h.state.toLowerCase()}
                </span>
              </dd>
              <dt>Started</dt>
              <dd>
                {formatTime(h.startTime)} UTC{h.startUserId ? ` by ${h.startUserId}` : ""}
              </dd>
              {h.endTime && (
                <>
                  <dt>Ended</dt>
                  <dd>{formatTime(h.endTime)} UTC</dd>
                </>
              )}
              {h.superProcessInstanceId && (
                <>
                  <dt>Called by</dt>
                  <dd>
                    <Link href={paths.instance(h.superProcessInstanceId)} data-testid="calling-instance">
                      {shortId(h.superProcessInstanceId)}
                    </Link>
                  </dd>
                </>
              )}
              {h.restartedProcessInstanceId && (
                <>
                  <dt>Restart of</dt>
                  <dd>
                    <Link href={paths.instance(h.restartedProcessInstanceId)} data-testid="restarted-from">
                      {shortId(h.restartedProcessInstanceId)}
                    </Link>
                  </dd>
                </>
              )}
              {(children.data ?? []).length > 0 && (
                <>
                  <dt>Called</dt>
                  <dd>
                    <ul class="inline-list">
                      {children.data!.map((c) => (
                        <li key={c.id}>
                          <Link href={paths.instance(c.id)} data-testid={`called-instance-${c.id}`}>
                            {c.processDefinitionKey} {shortId(c.id)}
                          </Link>
                        </li>
                      ))}
                    </ul>
                  </dd>
                </>
              )}
            </dl>
          </>
        )}
      </Show>

      <section class="card" aria-labelledby="travel-heading">
        <h2 id="travel-heading" class="visually-hidden">
          Time travel
        </h2>
        {timeline.error !== undefined ? (
          <Problem error={timeline.error} what="the instance's timeline" />
        ) : positions.length === 0 ? (
          <p class="muted">Loading the instance's history…</p>
        ) : (
          <div class="slider">
            <label for="time-slider">Position in the instance's history</label>
            <input
              id="time-slider"
              data-testid="time-slider"
              type="range"
              min={0}
              max={travel.last}
              step={1}
              value={travel.index}
              aria-valuetext={
                current
                  ? `position ${current.position}, ${formatTime(current.time)}, ${current.activityName ?? current.activityId ?? ""} ${current.what}`
                  : undefined
              }
              onInput={(e) => travel.go(Number(e.currentTarget.value))}
            />
            <span data-testid="position-label" aria-live="polite">
              {current ? `position ${current.position} · ${formatTime(current.time)}` : ""}
              {travel.loading ? " · loading…" : ""}
            </span>
          </div>
        )}
        {current && (
          <p class="muted" style={{ margin: "0.3rem 0 0" }}>
            Step {travel.index + 1} of {positions.length}: {current.activityName ?? current.activityId ?? "instance"} —{" "}
            {current.what}
            {current.actor ? ` (by ${current.actor})` : ""}
          </p>
        )}
        <div class="toolbar" style={{ marginTop: "0.5rem" }}>
          <button type="button" disabled={travel.index <= 0} onClick={() => travel.go(travel.index - 1)}>
            ← Step back
          </button>
          <button type="button" disabled={travel.index >= travel.last} onClick={() => travel.go(travel.index + 1)}>
            Step forward →
          </button>
          {past && (
            <button type="button" onClick={() => travel.follow()}>
              Back to now
            </button>
          )}
          {travel.position !== null && diffFrom === null && (
            <button
              type="button"
              onClick={() => setParams({ diff: positions[Math.max(0, travel.index - 1)] ?? travel.position })}
            >
              Diff…
            </button>
          )}
          <label for="why-activity">Explain activity</label>
          <select
            id="why-activity"
            value={selected ?? ""}
            onChange={(e) => e.currentTarget.value && explain(e.currentTarget.value)}
          >
            <option value="">choose…</option>
            {[...names].map(([activityId, name]) => (
              <option key={activityId} value={activityId}>
                {name}
              </option>
            ))}
          </select>
        </div>
        {past && current && (
          <p class="past-banner" data-testid="past-banner">
            You are looking at the past: the instance as it was at position {current.position} (
            {formatTime(current.time)} UTC). Actions are off until you go back to now.
          </p>
        )}
        {travel.error !== undefined && <Problem error={travel.error} what="the state at this position" />}
      </section>

      <Show data={xml} what="the diagram">
        {(x) =>
          x && (
            <BpmnDiagram
              xml={x.bpmn20Xml}
              decorations={decorations}
              label="Instance diagram"
              onSelect={select}
            />
          )
        }
      </Show>

      {!ended && !past && live.data && (
        <ModifyPanel
          id={id}
          modification={modification}
          activityId={selected}
          names={names}
          outgoing={outgoing}
          onSelect={select}
          onExplain={explain}
          onModified={(message) => {
            setProblem(null);
            setFlash(message);
            changed();
            travel.follow();
          }}
        />
      )}
      {ended && history.data && (
        <RestartPanel
          instance={history.data}
          activityId={selected}
          startEvent={startEvent}
          names={names}
          onSelect={select}
        />
      )}

      {diffFrom !== null && travel.position !== null && (
        <DiffView
          id={id}
          from={diffFrom}
          to={travel.position}
          onChangeFrom={(p) => setParams({ diff: p })}
          onClose={() => setParams({ diff: null })}
        />
      )}
      {whyAt !== null && (
        <WhyView
          id={id}
          position={whyAt}
          activityName={whyEntry ? (whyEntry.activityName ?? whyEntry.activityId) : null}
          onClose={() => setParams({ why: null })}
        />
      )}

      <nav aria-label="Instance sections">
        <ul class="tabs">
          {TABS.map((t) => (
            <li key={t}>
              <Link href={instanceHref(id, { tab: t === "variables" ? null : t })} aria-current={t === tab ? "page" : undefined}>
                {t[0]!.toUpperCase() + t.slice(1)}
              </Link>
            </li>
          ))}
        </ul>
      </nav>
      {tab === "timeline" ? (
        <Show data={timeline} what="the timeline">
          {(entries) => (
            <Timeline
              entries={entries}
              position={travel.position}
              onGo={(p) => travel.goToPosition(p)}
              onWhy={(p) => setParams({ why: p })}
            />
          )}
        </Show>
      ) : past || ended ? (
        view ? (
          <PastState tab={tab} view={view} />
        ) : (
          <p class="muted">Loading the state at this position…</p>
        )
      ) : tab === "variables" ? (
        <LiveVariables key={version} id={id} ended={ended} onChanged={changed} />
      ) : tab === "tasks" ? (
        <LiveTasks key={version} id={id} />
      ) : tab === "jobs" ? (
        <LiveJobs key={version} id={id} onChanged={changed} />
      ) : tab === "incidents" ? (
        <LiveIncidents key={version} id={id} onChanged={changed} />
      ) : (
        <LiveTree key={version} id={id} ended={ended} />
      )}
    </>
  );
}

function PastState({ tab, view }: { tab: Exclude<Tab, "timeline">; view: InstanceView }) {
  switch (tab) {
    case "variables":
      return <PastVariables view={view} />;
    case "tasks":
      return <PastTasks view={view} />;
    case "jobs":
      return <PastJobs view={view} />;
    case "incidents":
      return <PastIncidents view={view} />;
    default:
      return <PastTree view={view} />;
  }
}
