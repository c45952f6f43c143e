// A migration the server refused, as readable as its 400 says it: the plan's failing
// instructions (MigrationPlanValidationException), or what in one instance cannot move
// (MigratingProcessInstanceValidationException); any other failure as its message.
import { ApiError } from "../../api/http";
import { errorText, isNotAvailable } from "../../components/common";
import { shortId } from "../../lib/format";
import { activityLabel, describeMapping, refusalOf, variableFailures } from "../../lib/migration";
import { paths } from "../../lib/routes";
import { Link } from "../../router";

function Failures({ failures }: { failures: string[] }) {
  return (
    <ul class="failures">
      {failures.map((text) => (
        <li key={text}>{text}</li>
      ))}
    </ul>
  );
}

export function MigrationRefusal({
  error,
  sourceNames,
  targetNames,
}: {
  error: unknown;
  sourceNames: Map<string, string>;
  targetNames: Map<string, string>;
}) {
  if (isNotAvailable(error)) {
    return (
      <p class="notice" role="alert" data-testid="not-available">
        Migration is not available on this server yet.
      </p>
    );
  }
  const refusal = error instanceof ApiError ? refusalOf(error.body) : null;
  if (!refusal) {
    const reason =
      error instanceof ApiError && error.type && error.status < 500 ? `${error.message} (${error.type})` : errorText(error);
    return (
      <p class="error" role="alert" data-testid="migration-error">
        The server refused: {reason}
      </p>
    );
  }
  // Camunda's message repeats the report over several lines: its first line heads the report
  const headline = refusal.message.split("\n")[0]?.replace(/:\s*$/, "") ?? "";
  if (refusal.kind === "plan") {
    const variables = variableFailures(refusal.report);
    return (
      <div class="error" role="alert" data-testid="migration-error">
        <p>
          <strong>The plan is not valid; nothing was migrated.</strong> {headline}
        </p>
        <ul>
          {refusal.report.instructionReports.map((entry) => (
            <li key={JSON.stringify(entry.instruction)}>
              {describeMapping(entry.instruction, sourceNames, targetNames)}
              <Failures failures={entry.failures} />
            </li>
          ))}
          {variables.map(([variable, failures]) => (
            <li key={variable}>
              Variable <code>{variable}</code>
              <Failures failures={failures} />
            </li>
          ))}
        </ul>
      </div>
    );
  }
  const report = refusal.report;
  return (
    <div class="error" role="alert" data-testid="migration-error">
      <p>
        <strong>
          Instance{" "}
          {report.processInstanceId ? (
            <Link href={paths.instance(report.processInstanceId)} title={report.processInstanceId}>
              {shortId(report.processInstanceId)}
            </Link>
          ) : (
            "?"
          )}{" "}
          cannot be migrated; nothing was migrated.
        </strong>{" "}
        {headline}
      </p>
      {report.failures.length > 0 && <Failures failures={report.failures} />}
      <ul>
        {report.activityInstanceValidationReports.map((entry) => (
          <li key={entry.activityInstanceId} data-testid={`refused-${entry.sourceScopeId}`}>
            Activity instance <code title={entry.activityInstanceId}>{shortId(entry.activityInstanceId)}</code> at{" "}
            {activityLabel(sourceNames, entry.sourceScopeId)} ({describeMapping(entry.migrationInstruction, sourceNames, targetNames)})
            <Failures failures={entry.failures} />
          </li>
        ))}
        {report.transitionInstanceValidationReports.map((entry) => (
          <li key={entry.transitionInstanceId} data-testid={`refused-${entry.sourceScopeId}`}>
            Waiting continuation <code title={entry.transitionInstanceId}>{shortId(entry.transitionInstanceId)}</code> at{" "}
            {activityLabel(sourceNames, entry.sourceScopeId)} ({describeMapping(entry.migrationInstruction, sourceNames, targetNames)})
            <Failures failures={entry.failures} />
          </li>
        ))}
      </ul>
    </div>
  );
}
