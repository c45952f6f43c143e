// bpmn-js's viewer and its styles, split from the app's first chunk: loaded by BpmnDiagram.
import "bpmn-js/dist/assets/diagram-js.css";
import "bpmn-js/dist/assets/bpmn-js.css";

export { default as NavigatedViewer } from "bpmn-js/lib/NavigatedViewer";
export { layoutProcess } from "bpmn-auto-layout";
