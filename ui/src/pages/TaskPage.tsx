// One task: who has it (claim, unclaim, assign), its form (generated fields or a formKey link),
// completing it through Camunda's submit-form, and its comments.
import { useState } from "preact/hooks";
import { api } from "../api";
import { Flash, Problem, Show, errorText, useData, useTitle } from "../components/common";
import { GeneratedForm } from "../components/TaskForm";
import { formKeyHref, isGeneratedFormKey } from "../lib/formKey";
import { formatTime, shortId } from "../lib/format";
import { paths } from "../lib/routes";
import { Link } from "../router";
import { useSession } from "../session";
import { taskFields } from "./tasks";

function Comments({ id }: { id: string }) {
  const comments = useData(() => api.comments(id), [id]);
  const [text, setText] = useState("");
  const [problem, setProblem] = useState<string | null>(null);
  const add = async (event: Event) => {
    event.preventDefault();
    if (!text.trim()) return;
    try {
      await api.addComment(id, text.trim());
      setText("");
      setProblem(null);
      comments.reload();
    } catch (error) {
      setProblem(errorText(error));
    }
  };
  return (
    <section aria-labelledby="comments-heading">
      <h2 id="comments-heading">Comments</h2>
      <Show data={comments} what="the comments">
        {(rows) =>
          rows.length === 0 ? (
            <p>No comment yet.</p>
          ) : (
            <ul class="comments">
              {rows.map((c) => (
                <li key={c.id} data-testid={`comment-${c.id}`}>
                  <strong>{c.userId ?? "someone"}</strong> <span class="muted">{formatTime(c.time)} UTC</span>
                  <div class="wrap">{c.message}</div>
                </li>
              ))}
            </ul>
          )
        }
      </Show>
      {comments.error === undefined && (
        <form onSubmit={add} class="field">
          <label for="comment-text">Add a comment</label>
          <textarea id="comment-text" rows={3} value={text} onInput={(e) => setText(e.currentTarget.value)} />
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <div>
            <button type="submit">Add comment</button>
          </div>
        </form>
      )}
    </section>
  );
}

export function TaskPage({ id }: { id: string }) {
  const session = useSession();
  const user = session?.user ?? null;
  const [version, setVersion] = useState(0);
  const task = useData(() => api.task(id), [id, version]);
  useTitle(task.data?.name ?? "Task");
  const links = useData(() => api.identityLinks(id), [id, version]);
  const form = useData(() => api.taskForm(id), [id]);
  const fields = useData(() => taskFields(id), [id]);
  const [assignee, setAssignee] = useState("");
  const [flash, setFlash] = useState<string | null>(null);
  const [problem, setProblem] = useState<string | null>(null);
  const [done, setDone] = useState(false);

  const act = async (action: () => Promise<unknown>, message: string) => {
    setProblem(null);
    try {
      await action();
      setFlash(message);
      setVersion((v) => v + 1);
    } catch (error) {
      setProblem(errorText(error));
    }
  };

  if (done) {
    return (
      <>
        <h1>Task completed</h1>
        <Flash message="The task is completed." />
        <p>
          <Link href="/tasklist">Back to the tasklist</Link>
        </p>
      </>
    );
  }

  const candidates = (links.data ?? []).filter((l) => l.type === "candidate");
  const href = formKeyHref(form.data?.key, form.data?.contextPath);

  return (
    <Show data={task} what="the task">
      {(t) => (
        <>
          <div class="page-head">
            <h1>{t.name ?? t.taskDefinitionKey ?? t.id}</h1>
            <Link href="/tasklist">← Tasklist</Link>
          </div>
          <Flash message={flash} />
          {problem && (
            <p class="error" role="alert">
              {problem}
            </p>
          )}
          <dl class="facts facts-inline card">
            <dt>Assignee</dt>
            <dd data-testid="task-assignee">{t.assignee ?? "nobody"}</dd>
            <dt>Candidates</dt>
            <dd>
              {candidates.map((c) => (c.userId ? c.userId : `group ${c.groupId}`)).join(", ") || "—"}
            </dd>
            <dt>Created</dt>
            <dd>{formatTime(t.created)} UTC</dd>
            {t.due && (
              <>
                <dt>Due</dt>
                <dd>{formatTime(t.due)} UTC</dd>
              </>
            )}
            {t.processInstanceId && (
              <>
                <dt>Process instance</dt>
                <dd>
                  <Link href={paths.instance(t.processInstanceId)}>{shortId(t.processInstanceId)}</Link>
                </dd>
              </>
            )}
          </dl>
          <div class="toolbar">
            {!t.assignee && user && (
              <button type="button" class="primary" onClick={() => act(() => api.claim(id, user), "You claimed the task")}>
                Claim
              </button>
            )}
            {t.assignee && (
              <button type="button" onClick={() => act(() => api.unclaim(id), "The task is unclaimed")}>
                Unclaim
              </button>
            )}
            <form
              class="toolbar"
              onSubmit={(e) => {
                e.preventDefault();
                if (assignee.trim()) act(() => api.assign(id, assignee.trim()), `Assigned to ${assignee.trim()}`);
              }}
            >
              <label for="assign-to">Assign to</label>
              <input id="assign-to" value={assignee} onInput={(e) => setAssignee(e.currentTarget.value)} />
              <button type="submit">Assign</button>
            </form>
          </div>
          {href !== null ? (
            <p class="card">
              This task has its own form: <a href={href} data-testid="form-key-link">{form.data?.key}</a>
            </p>
          ) : form.data?.key && !isGeneratedFormKey(form.data.key) ? (
            <p class="card" data-testid="form-key-link">
              This task has its own form: <code>{form.data.key}</code>
            </p>
          ) : null}
          <h2>Complete the task</h2>
          {fields.error !== undefined ? (
            <Problem error={fields.error} what="the task's form" />
          ) : fields.data === undefined ? (
            <p class="muted">Loading the form…</p>
          ) : (
            <>
              {!fields.data.typed && (
                <p class="notice" data-testid="not-available">
                  The form's field types and constraints are not available on this server yet; its variables are shown as
                  text.
                </p>
              )}
              <GeneratedForm
                fields={fields.data.fields}
                submitLabel="Complete"
                onSubmit={async (variables) => {
                  await api.submitTaskForm(id, variables);
                  setDone(true);
                }}
              />
            </>
          )}
          <Comments id={id} />
        </>
      )}
    </Show>
  );
}
