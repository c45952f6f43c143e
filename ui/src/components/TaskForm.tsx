// A generated form (camunda:formData): one labelled input per field by its type, defaults,
// enum options, the constraints checked in the page with the message next to the field, then
// Camunda's typed variables sent by the caller; a server refusal (400) is shown above the button.
import type { ComponentChildren } from "preact";
import { useRef, useState } from "preact/hooks";
import type { FormField } from "../api/extensions";
import { ApiError } from "../api/http";
import {
  initialValues,
  inputAttributes,
  isReadonly,
  isRequired,
  toVariables,
  validateForm,
  type FormValues,
  type TypedValue,
} from "../lib/forms";
import { errorText } from "./common";

function Field({
  field,
  value,
  error,
  onChange,
}: {
  field: FormField;
  value: string | boolean | undefined;
  error: string | undefined;
  onChange: (value: string | boolean) => void;
}) {
  const id = `field-${field.id}`;
  const errorId = `form-error-${field.id}`;
  const label = field.label || field.id;
  const common = {
    id,
    name: field.id,
    "aria-invalid": error ? ("true" as const) : undefined,
    "aria-describedby": error ? errorId : undefined,
    "aria-required": isRequired(field) ? ("true" as const) : undefined,
  };
  let input;
  if (field.type === "boolean") {
    return (
      <div class="field">
        <label class="check" for={id}>
          <input
            {...common}
            type="checkbox"
            checked={value === true}
            disabled={isReadonly(field)}
            onChange={(e) => onChange(e.currentTarget.checked)}
          />
          {label}
        </label>
      </div>
    );
  }
  if (field.type === "enum") {
    input = (
      <select
        {...common}
        value={typeof value === "string" ? value : ""}
        disabled={isReadonly(field)}
        onChange={(e) => onChange(e.currentTarget.value)}
      >
        <option value="">{isRequired(field) ? "choose…" : "(none)"}</option>
        {field.values.map((option) => (
          <option key={option.id} value={option.id}>
            {option.name ?? option.id}
          </option>
        ))}
      </select>
    );
  } else {
    input = (
      <input
        {...common}
        {...inputAttributes(field)}
        type={field.type === "date" ? "date" : "text"}
        inputMode={field.type === "long" ? "numeric" : undefined}
        value={typeof value === "string" ? value : ""}
        onInput={(e) => onChange(e.currentTarget.value)}
      />
    );
  }
  return (
    <div class="field">
      <label for={id}>
        {label}
        {isRequired(field) && <span class="muted"> (required)</span>}
        {isReadonly(field) && <span class="muted"> (read-only)</span>}
      </label>
      {input}
      {error && (
        <p id={errorId} class="field-error" data-testid={errorId}>
          {error}
        </p>
      )}
    </div>
  );
}

export function GeneratedForm({
  fields,
  submitLabel,
  onSubmit,
  children,
}: {
  fields: FormField[];
  submitLabel: string;
  onSubmit: (variables: Record<string, TypedValue>) => Promise<void>;
  children?: ComponentChildren;
}) {
  const [values, setValues] = useState<FormValues>(() => initialValues(fields));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [serverError, setServerError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);

  const submit = async (event: Event) => {
    event.preventDefault();
    setServerError(null);
    const found = validateForm(fields, values);
    setErrors(found);
    const first = fields.find((f) => found[f.id]);
    if (first) {
      form.current?.querySelector<HTMLElement>(`#field-${CSS.escape(first.id)}`)?.focus();
      return;
    }
    setBusy(true);
    try {
      await onSubmit(toVariables(fields, values));
    } catch (error) {
      setServerError(error instanceof ApiError ? `The server refused the form: ${error.message}` : errorText(error));
    } finally {
      setBusy(false);
    }
  };

  return (
    <form ref={form} onSubmit={submit} noValidate class="card" aria-label="Task form">
      {children}
      {fields.map((field) => (
        <Field
          key={field.id}
          field={field}
          value={values[field.id]}
          error={errors[field.id]}
          onChange={(value) => {
            setValues({ ...values, [field.id]: value });
            if (errors[field.id]) {
              const rest = { ...errors };
              delete rest[field.id];
              setErrors(rest);
            }
          }}
        />
      ))}
      {Object.keys(errors).length > 0 && (
        <p class="error" role="alert">
          Please correct the {Object.keys(errors).length === 1 ? "field" : "fields"} marked above.
        </p>
      )}
      {serverError && (
        <p class="error" role="alert" data-testid="form-server-error">
          {serverError}
        </p>
      )}
      <button type="submit" class="primary" disabled={busy}>
        {busy ? "Sending…" : submitLabel}
      </button>
    </form>
  );
}
