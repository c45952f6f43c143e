// What the pages read from a BPMN model's XML besides drawing it: the activities' names, how
// many sequence flows leave each, and the start event a restart begins at by default.

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

function parse(xml: string): Document | null {
  try {
    return new DOMParser().parseFromString(xml, "application/xml");
  } catch {
    return null;
  }
}

/** Activity (flow node) id → name (or the id), in document order. */
export function activityNames(xml: string): Map<string, string> {
  const names = new Map<string, string>();
  const doc = parse(xml);
  if (!doc) return names;
  for (const el of Array.from(doc.getElementsByTagNameNS(BPMN_MODEL, "*"))) {
    const id = el.getAttribute("id");
    if (!id || NOT_ACTIVITIES.has(el.localName)) continue;
    names.set(id, el.getAttribute("name") || id);
  }
  return names;
}

/** Activity id → how many sequence flows leave it ("start after" needs exactly one). */
export function outgoingFlowCounts(xml: string): Map<string, number> {
  const counts = new Map<string, number>();
  const doc = parse(xml);
  if (!doc) return counts;
  for (const flow of Array.from(doc.getElementsByTagNameNS(BPMN_MODEL, "sequenceFlow"))) {
    const source = flow.getAttribute("sourceRef");
    if (source) counts.set(source, (counts.get(source) ?? 0) + 1);
  }
  return counts;
}

/** The start event an instance of the (first executable) process begins at: a start event of
 * the process itself (not of an event sub process), a plain one before a triggered one. */
export function initialStartEvent(xml: string): string | null {
  const doc = parse(xml);
  if (!doc) return null;
  const processes = Array.from(doc.getElementsByTagNameNS(BPMN_MODEL, "process"));
  const process = processes.find((p) => p.getAttribute("isExecutable") !== "false") ?? processes[0];
  if (!process) return null;
  const starts = Array.from(process.children).filter(
    (el) => el.namespaceURI === BPMN_MODEL && el.localName === "startEvent",
  );
  const plain = starts.find((el) => !Array.from(el.children).some((c) => c.localName.endsWith("EventDefinition")));
  return (plain ?? starts[0])?.getAttribute("id") ?? null;
}

/** Activity id → its BPMN element (`userTask`, `boundaryEvent`, …), in document order. */
export function activityKinds(xml: string): Map<string, string> {
  const kinds = new Map<string, string>();
  const doc = parse(xml);
  if (!doc) return kinds;
  for (const el of Array.from(doc.getElementsByTagNameNS(BPMN_MODEL, "*"))) {
    const id = el.getAttribute("id");
    if (id && !NOT_ACTIVITIES.has(el.localName)) kinds.set(id, el.localName);
  }
  return kinds;
}
