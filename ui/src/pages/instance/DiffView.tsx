// What changed between two positions of the instance: variables added / changed / removed (a
// variable the instance still held when it ended is not "removed"), tokens that moved, tasks
// that came and went, everything else listed plainly.
import { useState } from "preact/hooks";
import { api } from "../../api";
import { Show, useData } from "../../components/common";
import { summarizeDiff, type VariableChange } from "../../lib/diff";
import { formatValue } from "../../lib/format";

function Variables({ title, items, render }: { title: string; items: VariableChange[]; render: (v: VariableChange) => string }) {
  if (items.length === 0) return null;
  return (
    <>
      <h4>{title}</h4>
      <ul class="diff-list">
        {items.map((v) => (
          <li key={`${v.scope}/${v.name}`} data-testid={`diff-variable-${v.name}`}>
            <code>{v.name}</code> {render(v)}
            {v.scope && v.scope !== "process instance" && <span class="muted"> (in {v.scope})</span>}
          </li>
        ))}
      </ul>
    </>
  );
}

export function DiffView({
  id,
  from,
  to,
  onChangeFrom,
  onClose,
}: {
  id: string;
  from: number;
  to: number;
  onChangeFrom: (position: number) => void;
  onClose: () => void;
}) {
  const low = Math.min(from, to);
  const high = Math.max(from, to);
  const diff = useData(() => api.diff(id, low, high), [id, low, high]);
  const [draft, setDraft] = useState(String(from));
  return (
    <section class="card" aria-labelledby="diff-heading" data-testid="diff-view">
      <h3 id="diff-heading">
        Changes from position {low} to {high}
      </h3>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const n = Number(draft);
          if (Number.isInteger(n) && n > 0) onChangeFrom(n);
        }}
      >
        <label for="diff-from">Compare with position</label>
        <input
          id="diff-from"
          data-testid="diff-from"
          type="number"
          min={1}
          value={draft}
          onInput={(e) => setDraft(e.currentTarget.value)}
          style={{ width: "8rem" }}
        />
        <button type="submit">Compare</button>
        <button type="button" onClick={onClose}>
          Close diff
        </button>
      </form>
      <Show data={diff} what="the diff">
        {(d) => {
          const s = summarizeDiff(d);
          if (s.empty) return <p>Nothing changed between these positions.</p>;
          return (
            <div class="columns">
              <div>
                <h4>Instance</h4>
                {s.instance.length === 0 ? (
                  <p class="muted">unchanged</p>
                ) : (
                  <ul class="diff-list">
                    {s.instance.map((f) => (
                      <li key={f.field}>
                        {f.field}: {formatValue(f.before)} → {formatValue(f.after)}
                      </li>
                    ))}
                  </ul>
                )}
                <Variables title="Variables added" items={s.variables.added} render={(v) => `= ${formatValue(v.after)}`} />
                <Variables
                  title="Variables changed"
                  items={s.variables.changed}
                  render={(v) => `${formatValue(v.before)} → ${formatValue(v.after)}`}
                />
                <Variables title="Variables removed" items={s.variables.removed} render={(v) => `was ${formatValue(v.before)}`} />
                <Variables
                  title="Kept when the instance ended"
                  items={s.variables.keptAtEnd}
                  render={(v) => `last value ${formatValue(v.before)}`}
                />
              </div>
              <div>
                <h4>Tokens</h4>
                {s.tokens.left.length + s.tokens.entered.length === 0 ? (
                  <p class="muted">no token moved</p>
                ) : (
                  <ul class="diff-list">
                    {s.tokens.left.map((t, i) => (
                      <li key={`l${i}`} class="diff-removed">
                        left {t.activityName ?? t.activityId}
                      </li>
                    ))}
                    {s.tokens.entered.map((t, i) => (
                      <li key={`e${i}`} class="diff-added">
                        entered {t.activityName ?? t.activityId}
                      </li>
                    ))}
                  </ul>
                )}
                <h4>Tasks</h4>
                {s.tasks.came.length + s.tasks.went.length === 0 ? (
                  <p class="muted">no task came or went</p>
                ) : (
                  <ul class="diff-list">
                    {s.tasks.came.map((t) => (
                      <li key={t.id} class="diff-added">
                        came: {t.name ?? t.taskDefinitionKey ?? t.id}
                      </li>
                    ))}
                    {s.tasks.went.map((t) => (
                      <li key={t.id} class="diff-removed">
                        went: {t.name ?? t.taskDefinitionKey ?? t.id}
                      </li>
                    ))}
                  </ul>
                )}
                {s.other.length > 0 && (
                  <>
                    <h4>Also</h4>
                    <ul class="diff-list">
                      {s.other.map((c) => (
                        <li key={`${c.section}/${c.key}`}>
                          {c.section}: {c.key} {c.kind}
                        </li>
                      ))}
                    </ul>
                  </>
                )}
              </div>
            </div>
          );
        }}
      </Show>
    </section>
  );
}
