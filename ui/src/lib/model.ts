// What the pages read from a BPMN model's XML besides drawing it: the activities' names.

const NOT_ACTIVITIES = new Set([
  "definitions",
  "process",
  "sequenceFlow",
  "messageFlow",
  "association",
  "laneSet",
  "lane",
  "collaboration",
  "participant",
  "textAnnotation",
  "dataObject",
  "dataObjectReference",
  "dataStoreReference",
  "extensionElements",
  "conditionExpression",
  "timerEventDefinition",
  "messageEventDefinition",
  "signalEventDefinition",
  "errorEventDefinition",
  "escalationEventDefinition",
  "conditionalEventDefinition",
  "terminateEventDefinition",
  "compensateEventDefinition",
  "linkEventDefinition",
  "multiInstanceLoopCharacteristics",
  "standardLoopCharacteristics",
  "message",
  "signal",
  "error",
  "escalation",
  "ioSpecification",
  "property",
]);

const BPMN_MODEL = "http://www.omg.org/spec/BPMN/20100524/MODEL";

/** Activity (flow node) id → name (or the id), in document order. */
export function activityNames(xml: string): Map<string, string> {
  const names = new Map<string, string>();
  let doc: Document;
  try {
    doc = new DOMParser().parseFromString(xml, "application/xml");
  } catch {
    return names;
  }
  for (const el of Array.from(doc.getElementsByTagNameNS(BPMN_MODEL, "*"))) {
    const id = el.getAttribute("id");
    if (!id || NOT_ACTIVITIES.has(el.localName)) continue;
    names.set(id, el.getAttribute("name") || id);
  }
  return names;
}
