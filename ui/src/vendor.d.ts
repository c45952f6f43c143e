// Type declarations for the diagram libraries that ship none.
declare module "bpmn-auto-layout" {
  export function layoutProcess(xml: string): Promise<string>;
}

declare module "dmn-js/lib/Viewer" {
  export interface DmnView {
    id: string;
    name?: string;
    type: "drd" | "decisionTable" | "literalExpression" | "boxedExpression" | string;
    element: unknown;
  }
  export default class DmnViewer {
    constructor(options: { container: HTMLElement; common?: Record<string, unknown> });
    importXML(xml: string): Promise<{ warnings: unknown[] }>;
    getViews(): DmnView[];
    getActiveView(): DmnView | undefined;
    open(view: DmnView): Promise<{ warnings: unknown[] }>;
    destroy(): void;
  }
}
