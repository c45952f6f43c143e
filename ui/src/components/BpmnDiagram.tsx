// A BPMN diagram (bpmn-js's NavigatedViewer, loaded on first use) with what the cockpit draws on
// it: running / incident badges, heat, tokens, incident markers, passed activities and the
// sequence flows taken. Models without diagram interchange are laid out (bpmn-auto-layout).
import { useEffect, useRef, useState } from "preact/hooks";
import type { Badge, Heat } from "../lib/badges";
import { heatColor } from "../lib/badges";
import { formatDuration } from "../lib/format";
import { withFlowReferences } from "../lib/layout";

export interface Decorations {
  badges?: Badge[];
  heat?: Heat[] | null;
  /** activity id → how many tokens wait there */
  tokens?: Map<string, number>;
  /** activity id → open incidents there */
  incidents?: Map<string, number>;
  /** activity id → how often the instance passed it */
  passed?: Map<string, number>;
  flows?: Set<string>;
  selected?: string | null;
  /** activity id → the instructions queued there, not applied yet (instance modification) */
  pending?: Map<string, { text: string; title: string }>;
  /** activity id → a warning about it (migration: instances run there and no instruction maps it) */
  warnings?: Map<string, string>;
  /** activity id → a short label above it (migration: where the plan maps it) */
  labels?: Map<string, { text: string; title: string }>;
}

interface Shape {
  id: string;
  width?: number;
  height?: number;
  waypoints?: unknown;
  businessObject?: { name?: string; $instanceOf?: (type: string) => boolean };
}

interface ViewerLike {
  importXML(xml: string): Promise<{ warnings: unknown[] }>;
  get<T>(name: string): T;
  destroy(): void;
}

interface OverlaysLike {
  add(element: string, type: string, overlay: { position: object; html: HTMLElement }): string;
  remove(filter: { type: string }): void;
}

interface CanvasLike {
  zoom(level?: "fit-viewport" | number, center?: "auto"): number;
  addMarker(element: string, marker: string): void;
  removeMarker(element: string, marker: string): void;
  resized(): void;
}

interface RegistryLike {
  get(id: string): Shape | undefined;
  getGraphics(id: string): SVGElement | undefined;
  filter(fn: (element: Shape) => boolean): Shape[];
}

interface EventBusLike {
  on(event: string, callback: (event: { element: Shape }) => void): void;
}

const OVERLAY = "flowledger";

/** True when the XML has diagram interchange to draw; otherwise it is laid out first. */
export function hasDiagram(xml: string): boolean {
  return /<([\w-]+:)?BPMNShape[\s>]/.test(xml);
}

export function isFlowNode(element: Shape): boolean {
  const bo = element.businessObject;
  return !!bo?.$instanceOf?.("bpmn:FlowNode");
}

function span(className: string, testId: string, text: string, title: string): HTMLElement {
  const el = document.createElement("span");
  el.className = className;
  el.dataset.testid = testId;
  el.textContent = text;
  el.title = title;
  el.setAttribute("aria-label", title);
  return el;
}

function decorate(viewer: ViewerLike, decorations: Decorations, marked: Set<string>): void {
  const overlays = viewer.get<OverlaysLike>("overlays");
  const canvas = viewer.get<CanvasLike>("canvas");
  const registry = viewer.get<RegistryLike>("elementRegistry");
  overlays.remove({ type: OVERLAY });
  for (const key of marked) {
    const [id, marker] = key.split("\u0000") as [string, string];
    if (!registry.get(id)) continue;
    if (marker === "fill") {
      const visual = registry.getGraphics(id)?.querySelector<SVGElement>(".djs-visual > :first-child");
      visual?.style.removeProperty("fill");
    } else canvas.removeMarker(id, marker);
  }
  marked.clear();
  const mark = (id: string, marker: string) => {
    if (!registry.get(id)) return;
    canvas.addMarker(id, marker);
    marked.add(`${id}\u0000${marker}`);
  };
  const add = (id: string, position: object, html: HTMLElement) => {
    if (registry.get(id)) overlays.add(id, OVERLAY, { position, html });
  };

  // the heat colors the shape itself (its label stays readable), its numbers sit below it
  for (const heat of decorations.heat ?? []) {
    const shape = registry.get(heat.activityId);
    const visual = registry.getGraphics(heat.activityId)?.querySelector<SVGElement>(".djs-visual > :first-child");
    if (!shape?.width || !visual) continue;
    visual.style.fill = heatColor(heat.level);
    marked.add(`${heat.activityId}\u0000fill`);
    const el = span(
      "fl-heat",
      `heat-${heat.activityId}`,
      `${heat.ran}×${heat.avgMillis === null ? "" : ` · ${formatDuration(heat.avgMillis)}`}`,
      `ran ${heat.ran} times` +
        (heat.avgMillis === null ? "" : `, average ${formatDuration(heat.avgMillis)}`) +
        (heat.maxMillis === null ? "" : `, longest ${formatDuration(heat.maxMillis)}`),
    );
    add(heat.activityId, { top: -22, left: 0 }, el);
  }
  for (const badge of decorations.badges ?? []) {
    if (badge.running > 0) {
      add(
        badge.activityId,
        { bottom: 10, left: -8 },
        span(
          "fl-badge fl-badge-running",
          `badge-running-${badge.activityId}`,
          String(badge.running),
          `${badge.running} running`,
        ),
      );
    }
    if (badge.incidents > 0) {
      add(
        badge.activityId,
        { bottom: 10, right: 8 },
        span(
          "fl-badge fl-badge-incident",
          `badge-incident-${badge.activityId}`,
          String(badge.incidents),
          `${badge.incidents} open incidents`,
        ),
      );
    }
  }
  for (const [id, count] of decorations.passed ?? []) {
    mark(id, "fl-passed-shape");
    add(
      id,
      { top: -10, right: 10 },
      span("fl-passed", `passed-${id}`, count > 1 ? `✓${count}` : "✓", `passed ${count}×`),
    );
  }
  for (const flow of decorations.flows ?? []) mark(flow, "fl-flow-taken");
  for (const [id, count] of decorations.tokens ?? []) {
    mark(id, "fl-token-shape");
    add(
      id,
      { top: -12, left: -12 },
      span("fl-token", `token-${id}`, count > 1 ? String(count) : "●", `${count} token(s) here`),
    );
  }
  for (const [id, count] of decorations.incidents ?? []) {
    mark(id, "fl-incident-shape");
    add(
      id,
      { bottom: 10, right: 8 },
      span("fl-badge fl-badge-incident", `incident-at-${id}`, `⚠${count}`, `${count} incident(s)`),
    );
  }
  for (const [id, queued] of decorations.pending ?? []) {
    add(id, { bottom: 10, left: -12 }, span("fl-pending", `pending-${id}`, queued.text, queued.title));
  }
  for (const [id, warning] of decorations.warnings ?? []) {
    mark(id, "fl-warning-shape");
    add(id, { top: -12, right: 12 }, span("fl-warning", `warning-at-${id}`, "!", warning));
  }
  for (const [id, label] of decorations.labels ?? []) {
    add(id, { top: -22, left: 0 }, span("fl-label", `label-at-${id}`, label.text, label.title));
  }
  if (decorations.selected) mark(decorations.selected, "fl-selected");
}

export function BpmnDiagram({
  xml,
  decorations,
  label,
  onSelect,
}: {
  xml: string;
  decorations: Decorations;
  label: string;
  onSelect?: (activityId: string) => void;
}) {
  const container = useRef<HTMLDivElement>(null);
  const viewerRef = useRef<ViewerLike | null>(null);
  const marked = useRef(new Set<string>());
  const selectRef = useRef(onSelect);
  selectRef.current = onSelect;
  const [imported, setImported] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [laidOut, setLaidOut] = useState(false);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        setProblem(null);
        const { NavigatedViewer, layoutProcess } = await import("./bpmnViewer");
        if (cancelled || !container.current) return;
        if (!viewerRef.current) {
          const viewer = new NavigatedViewer({ container: container.current }) as unknown as ViewerLike;
          viewer.get<EventBusLike>("eventBus").on("element.click", (event) => {
            if (isFlowNode(event.element)) selectRef.current?.(event.element.id);
          });
          viewerRef.current = viewer;
        }
        let source = xml;
        const layout = !hasDiagram(xml);
        if (layout) {
          source = await layoutProcess(withFlowReferences(xml));
        }
        if (cancelled) return;
        await viewerRef.current.importXML(source);
        viewerRef.current.get<CanvasLike>("canvas").zoom("fit-viewport", "auto");
        marked.current.clear();
        setLaidOut(layout);
        setImported(xml);
      } catch (error) {
        if (!cancelled) setProblem(error instanceof Error ? error.message : String(error));
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [xml]);

  useEffect(() => {
    if (viewerRef.current && imported === xml) decorate(viewerRef.current, decorations, marked.current);
  }, [imported, xml, decorations]);

  useEffect(
    () => () => {
      viewerRef.current?.destroy();
      viewerRef.current = null;
    },
    [],
  );

  const zoom = (by: number | "fit") => {
    const canvas = viewerRef.current?.get<CanvasLike>("canvas");
    if (!canvas) return;
    if (by === "fit") canvas.zoom("fit-viewport", "auto");
    else canvas.zoom(canvas.zoom() * by);
  };

  return (
    <figure class="diagram" aria-label={label}>
      <div class="diagram-tools">
        <button type="button" onClick={() => zoom(1.25)} aria-label="Zoom in">
          +
        </button>
        <button type="button" onClick={() => zoom(0.8)} aria-label="Zoom out">
          −
        </button>
        <button type="button" onClick={() => zoom("fit")}>
          Fit
        </button>
        {laidOut && (
          <span class="muted" data-testid="auto-layout">
            laid out automatically (the model has no diagram)
          </span>
        )}
      </div>
      <div
        class="diagram-canvas"
        ref={container}
        data-testid="bpmn-diagram"
        data-imported={imported === xml ? "true" : "false"}
      />
      {problem && (
        <p class="error" role="alert">
          The diagram could not be drawn: {problem}
        </p>
      )}
    </figure>
  );
}
