// The instance's event timeline: time, actor, command, what happened where, the variables it
// set, and the hash chain's status of its commit; a window of rows around the slider.
import { useEffect, useState } from "preact/hooks";
import type { TimelineEntry } from "../../api/extensions";
import { ChainBadge } from "../../components/common";
import { formatTime, formatValue } from "../../lib/format";
import { repairHeadline } from "../../lib/modification";

const WINDOW = 100;

export function Timeline({
  entries,
  position,
  onGo,
  onWhy,
}: {
  entries: TimelineEntry[];
  position: number | null;
  onGo: (position: number) => void;
  onWhy: (position: number) => void;
}) {
  const current = position === null ? entries.length - 1 : entries.findIndex((e) => e.position === position);
  const pageOf = (i: number) => Math.floor(Math.max(0, i) / WINDOW);
  const [page, setPage] = useState(pageOf(current));
  useEffect(() => setPage(pageOf(current)), [current]);
  const pages = Math.max(1, Math.ceil(entries.length / WINDOW));
  const rows = entries.slice(page * WINDOW, (page + 1) * WINDOW);
  const checked = entries.some((e) => e.chain !== undefined);
  return (
    <section aria-labelledby="timeline-heading">
      <h2 id="timeline-heading">Timeline</h2>
      {!checked && (
        <p class="notice" data-testid="not-available">
          The hash chain status per step is not available on this server yet.
        </p>
      )}
      {pages > 1 && (
        <nav class="pager" aria-label="Timeline pages">
          <button type="button" disabled={page === 0} onClick={() => setPage(page - 1)}>
            ← Earlier
          </button>
          <span>
            steps {page * WINDOW + 1}–{Math.min(entries.length, (page + 1) * WINDOW)} of {entries.length}
          </span>
          <button type="button" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
            Later →
          </button>
        </nav>
      )}
      <table class="table" data-testid="timeline">
        <thead>
          <tr>
            <th scope="col" class="num">Position</th>
            <th scope="col">Time (UTC)</th>
            <th scope="col">Actor</th>
            <th scope="col">Command</th>
            <th scope="col">Activity</th>
            <th scope="col">What</th>
            <th scope="col">Variables</th>
            <th scope="col">Chain</th>
            <th scope="col">
              <span class="visually-hidden">Actions</span>
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((entry) => (
            <tr
              key={entry.position}
              class={entry.position === position ? "current" : undefined}
              data-testid={`timeline-${entry.position}`}
              aria-current={entry.position === position ? "step" : undefined}
            >
              <td class="num">{entry.position}</td>
              <td>{formatTime(entry.time)}</td>
              <td>
                {entry.actor ?? "—"}
                {entry.via && <span class="muted"> ({entry.via})</span>}
              </td>
              <td>
                <code>{entry.commandType}</code>
              </td>
              <td>{entry.activityName ?? entry.activityId ?? ""}</td>
              <td>{entry.instructions.length > 0 ? <Repair entry={entry} /> : entry.what}</td>
              <td class="wrap">
                {Object.entries(entry.variables).map(([name, value]) => (
                  <div key={name}>
                    <code>
                      {name}={formatValue(value)}
                    </code>
                  </div>
                ))}
              </td>
              <td>
                <ChainBadge chain={entry.chain} />
              </td>
              <td>
                <div class="toolbar">
                  <button type="button" class="small" onClick={() => onGo(entry.position)}>
                    Go <span class="visually-hidden">to position {entry.position}</span>
                  </button>
                  <button type="button" class="small" onClick={() => onWhy(entry.position)}>
                    Why <span class="visually-hidden">position {entry.position}</span>
                  </button>
                </div>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  );
}

/** An operator's modification: its own line, its instructions one by one, their annotation. */
function Repair({ entry }: { entry: TimelineEntry }) {
  return (
    <div class="repair-entry" data-testid={`repair-${entry.position}`}>
      <strong>
        {repairHeadline(entry.what, entry.instructions)}
        {entry.actor ? ` by ${entry.actor}` : ""}
      </strong>
      <ol>
        {entry.instructions.map((instruction, n) => (
          <li key={n}>{instruction}</li>
        ))}
      </ol>
      {entry.annotation && (
        <p class="annotation" data-testid="modification-annotation">
          <span class="visually-hidden">Annotation: </span>“{entry.annotation}”
        </p>
      )}
    </div>
  );
}
