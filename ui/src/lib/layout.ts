// Prepares a model without diagram interchange for bpmn-auto-layout: the layouter walks the
// flow nodes' <incoming>/<outgoing> references, which hand-written models often leave out (the
// sequence flows' sourceRef/targetRef say the same), so every node would sit in its own row.
const BPMN = "http://www.omg.org/spec/BPMN/20100524/MODEL";

export function withFlowReferences(xml: string): string {
  const doc = new DOMParser().parseFromString(xml, "application/xml");
  if (doc.getElementsByTagName("parsererror").length) return xml;
  const byId = new Map<string, Element>();
  for (const el of Array.from(doc.getElementsByTagNameNS(BPMN, "*"))) {
    const id = el.getAttribute("id");
    if (id) byId.set(id, el);
  }
  const has = (node: Element, tag: string, flowId: string) =>
    Array.from(node.children).some(
      (child) => child.namespaceURI === BPMN && child.localName === tag && child.textContent?.trim() === flowId,
    );
  const add = (node: Element | undefined, tag: string, flowId: string) => {
    if (!node || has(node, tag, flowId)) return;
    const ref = doc.createElementNS(BPMN, node.prefix ? `${node.prefix}:${tag}` : tag);
    ref.textContent = flowId;
    // after documentation / extensionElements, before the element's own children
    const after = Array.from(node.children).filter(
      (child) =>
        child.namespaceURI === BPMN &&
        ["documentation", "extensionElements", "incoming", "outgoing"].includes(child.localName),
    );
    const last = after.length ? after[after.length - 1]! : null;
    node.insertBefore(ref, last ? last.nextSibling : node.firstChild);
  };
  for (const flow of Array.from(doc.getElementsByTagNameNS(BPMN, "sequenceFlow"))) {
    const id = flow.getAttribute("id");
    if (!id) continue;
    add(byId.get(flow.getAttribute("sourceRef") ?? ""), "outgoing", id);
    add(byId.get(flow.getAttribute("targetRef") ?? ""), "incoming", id);
  }
  return new XMLSerializer().serializeToString(doc);
}
