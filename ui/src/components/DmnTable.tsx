// A decision's table drawn by dmn-js's viewer (read-only), with the rules an evaluation matched
// highlighted.
import { useEffect, useRef, useState } from "preact/hooks";

interface Viewer {
  importXML(xml: string): Promise<unknown>;
  getViews(): { id: string; type: string }[];
  open(view: { id: string; type: string }): Promise<unknown>;
  destroy(): void;
}

export function DmnTable({ xml, decisionKey, matched }: { xml: string; decisionKey: string; matched: string[] }) {
  const container = useRef<HTMLDivElement>(null);
  const viewer = useRef<Viewer | null>(null);
  const [ready, setReady] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);

  useEffect(() => {
    let cancelled = false;
    (async () => {
      try {
        const { DmnViewer } = await import("./dmnViewer");
        if (cancelled || !container.current) return;
        viewer.current?.destroy();
        const v = new DmnViewer({ container: container.current }) as unknown as Viewer;
        viewer.current = v;
        await v.importXML(xml);
        const views = v.getViews();
        const view =
          views.find((x) => x.id === decisionKey && x.type === "decisionTable") ??
          views.find((x) => x.id === decisionKey) ??
          views.find((x) => x.type === "decisionTable");
        if (view) await v.open(view);
        if (!cancelled) setReady(true);
      } catch (error) {
        if (!cancelled) setProblem(error instanceof Error ? error.message : String(error));
      }
    })();
    return () => {
      cancelled = true;
    };
  }, [xml, decisionKey]);

  useEffect(
    () => () => {
      viewer.current?.destroy();
      viewer.current = null;
    },
    [],
  );

  useEffect(() => {
    const root = container.current;
    if (!root || !ready) return;
    for (const el of Array.from(root.querySelectorAll(".fl-matched"))) el.classList.remove("fl-matched");
    for (const rule of matched) {
      for (const el of Array.from(root.querySelectorAll(`[data-row-id="${CSS.escape(rule)}"]`))) {
        el.classList.add("fl-matched");
      }
    }
  }, [matched, ready]);

  return (
    <>
      <div class="dmn-container" ref={container} data-testid="dmn-table" data-ready={ready ? "true" : "false"} />
      {problem && (
        <p class="error" role="alert">
          The decision could not be drawn: {problem}
        </p>
      )}
    </>
  );
}
