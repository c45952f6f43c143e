// "Why": the command that wrote the event at a position and the chain of commands behind it,
// each with who sent it and, at gateways on the way, the condition that chose the path with
// the variable values it read then.
import { api } from "../../api";
import { Show, useData } from "../../components/common";
import { formatTime, formatValue } from "../../lib/format";

export function WhyView({
  id,
  position,
  activityName,
  onClose,
}: {
  id: string;
  position: number;
  activityName: string | null;
  onClose: () => void;
}) {
  const why = useData(() => api.why(id, position), [id, position]);
  return (
    <section class="card" aria-labelledby="why-heading" data-testid="why-view">
      <div class="page-head">
        <h3 id="why-heading">
          Why position {position}
          {activityName ? ` (${activityName})` : ""}
        </h3>
        <button type="button" onClick={onClose}>
          Close
        </button>
      </div>
      <Show data={why} what="the explanation">
        {(steps) => (
          <ol>
            {steps.map((step) => (
              <li key={step.position} class="why-step" data-testid={`why-step-${step.position}`}>
                <strong>{step.commandType}</strong> at position {step.position}, {formatTime(step.recordedAt)}, by{" "}
                {step.actor ?? "—"}
                {step.via ? ` (${step.via})` : ""}
                {step.becauseOf && <div class="muted">because of {step.becauseOf}</div>}
                <div class="muted">events: {step.events.join(", ")}</div>
                {step.conditions === undefined ? null : step.conditions.length === 0 ? null : (
                  <table class="table">
                    <thead>
                      <tr>
                        <th scope="col">Gateway</th>
                        <th scope="col">Flow</th>
                        <th scope="col">Condition</th>
                        <th scope="col">Result</th>
                        <th scope="col">Values read</th>
                      </tr>
                    </thead>
                    <tbody>
                      {step.conditions.map((c) => (
                        <tr key={`${c.gatewayId}/${c.flowId}`}>
                          <td>{c.gatewayId}</td>
                          <td>{c.flowId}</td>
                          <td>
                            <code>{c.expression ?? "(default flow)"}</code>
                          </td>
                          <td>{formatValue(c.result)}</td>
                          <td>
                            {Object.entries(c.variables).map(([name, value]) => (
                              <div key={name}>
                                <code>
                                  {name}={formatValue(value)}
                                </code>
                              </div>
                            ))}
                          </td>
                        </tr>
                      ))}
                    </tbody>
                  </table>
                )}
              </li>
            ))}
          </ol>
        )}
      </Show>
      {why.data && why.data.every((s) => s.conditions === undefined) && (
        <p class="notice" data-testid="not-available">
          The conditions behind each step are not available on this server yet.
        </p>
      )}
    </section>
  );
}
