// Starting a process from the tasklist with its start form (Camunda's submit-form on the
// process definition): business key, the generated fields, a link to the new instance.
import { useState } from "preact/hooks";
import { api } from "../api";
import { Problem, Show, useData, useTitle } from "../components/common";
import { GeneratedForm } from "../components/TaskForm";
import { formKeyHref } from "../lib/formKey";
import { paths } from "../lib/routes";
import { Link } from "../router";
import { startFields } from "./tasks";

export function StartForm({ id }: { id: string }) {
  const definition = useData(() => api.definition(id), [id]);
  useTitle(definition.data ? `Start ${definition.data.name ?? definition.data.key}` : "Start a process");
  const form = useData(() => api.startForm(id), [id]);
  const fields = useData(() => startFields(id), [id]);
  const [businessKey, setBusinessKey] = useState("");
  const [started, setStarted] = useState<string | null>(null);
  const href = formKeyHref(form.data?.key, form.data?.contextPath);

  return (
    <Show data={definition} what="the process">
      {(d) => (
        <>
          <div class="page-head">
            <h1>Start {d.name ?? d.key}</h1>
            <Link href="/tasklist">← Tasklist</Link>
          </div>
          {started ? (
            <p class="flash" role="status" data-testid="started">
              Started: <Link href={paths.instance(started)}>instance {started}</Link>
            </p>
          ) : fields.error !== undefined ? (
            <Problem error={fields.error} what="the start form" />
          ) : fields.data === undefined ? (
            <p class="muted">Loading the form…</p>
          ) : (
            <>
              {href && (
                <p class="card">
                  This process has its own start form: <a href={href}>{form.data?.key}</a>
                </p>
              )}
              {!fields.data.typed && (
                <p class="notice" data-testid="not-available">
                  The start form's field types and constraints are not available on this server yet.
                </p>
              )}
              <GeneratedForm
                fields={fields.data.fields}
                submitLabel="Start"
                onSubmit={async (variables) => {
                  const instance = await api.submitStartForm(id, variables, businessKey.trim() || undefined);
                  setStarted(instance.id);
                }}
              >
                <div class="field">
                  <label for="business-key">Business key</label>
                  <input id="business-key" value={businessKey} onInput={(e) => setBusinessKey(e.currentTarget.value)} />
                </div>
              </GeneratedForm>
            </>
          )}
        </>
      )}
    </Show>
  );
}
