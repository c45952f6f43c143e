// Task and start forms from camunda:formData: the values a reader types, checked in the page
// against the fields' constraints (the server checks again), and turned into Camunda's typed
// variables for POST .../submit-form.
import type { FormField } from "../api/extensions";

export type FieldValue = string | boolean;
export type FormValues = Record<string, FieldValue>;
export type TypedValue = { value: unknown; type: string };

export function constraint(field: FormField, name: string): string | null | undefined {
  const found = field.constraints.find((c) => c.name === name);
  return found === undefined ? undefined : (found.config ?? null);
}

export const isRequired = (field: FormField) => constraint(field, "required") !== undefined;
export const isReadonly = (field: FormField) => constraint(field, "readonly") !== undefined;

/** `2026-12-06`, `2026-12-06T10:00:00...` or Camunda's form pattern `06/12/2026` → `2026-12-06`. */
export function normalizeDate(text: string): string | null {
  const iso = /^(\d{4})-(\d{2})-(\d{2})/.exec(text);
  if (iso) return valid(iso[1]!, iso[2]!, iso[3]!);
  const dmy = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(text);
  if (dmy) return valid(dmy[3]!, dmy[2]!, dmy[1]!);
  return null;
}

function valid(year: string, month: string, day: string): string | null {
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  const ok =
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day);
  return ok ? `${year}-${month}-${day}` : null;
}

export function initialValue(field: FormField): FieldValue {
  const given = field.defaultValue;
  if (field.type === "boolean") return given === true || given === "true";
  if (given === null || given === undefined) {
    return "";
  }
  if (field.type === "date") return normalizeDate(String(given)) ?? String(given);
  return String(given);
}

export function initialValues(fields: FormField[]): FormValues {
  return Object.fromEntries(fields.map((field) => [field.id, initialValue(field)]));
}

function number(config: string | null | undefined): number | null {
  if (config === undefined || config === null || config.trim() === "") return null;
  const n = Number(config);
  return Number.isFinite(n) ? n : null;
}

/** The message shown next to the field, or null when the value passes every constraint. */
export function validateField(field: FormField, value: FieldValue | undefined): string | null {
  if (isReadonly(field) || field.type === "boolean") return null;
  const text = typeof value === "string" ? value.trim() : "";
  if (text === "") return isRequired(field) ? "This field is required." : null;
  if (field.type === "long") {
    if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) {
      return "Enter a whole number.";
    }
  }
  if (field.type === "date" && normalizeDate(text) === null) {
    return "Enter a date such as 2026-12-31.";
  }
  if (field.type === "enum" && field.values.length && !field.values.some((v) => v.id === text)) {
    return "Choose one of the options.";
  }
  const minLength = number(constraint(field, "minlength"));
  if (minLength !== null && text.length < minLength) {
    return `Enter at least ${minLength} characters.`;
  }
  const maxLength = number(constraint(field, "maxlength"));
  if (maxLength !== null && text.length > maxLength) {
    return `Enter at most ${maxLength} characters.`;
  }
  if (field.type === "long") {
    const min = number(constraint(field, "min"));
    if (min !== null && Number(text) < min) return `Enter ${min} or more.`;
    const max = number(constraint(field, "max"));
    if (max !== null && Number(text) > max) return `Enter ${max} or less.`;
  }
  return null;
}

export function validateForm(fields: FormField[], values: FormValues): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of fields) {
    const message = validateField(field, values[field.id]);
    if (message) errors[field.id] = message;
  }
  return errors;
}

const CAMUNDA_TYPES: Record<string, string> = {
  string: "String",
  long: "Long",
  boolean: "Boolean",
  date: "Date",
  enum: "String",
};

/** The form's values as Camunda's typed variables; read-only and empty optional fields left out
 * (Camunda's readonly validator refuses any submitted value). */
export function toVariables(fields: FormField[], values: FormValues): Record<string, TypedValue> {
  const variables: Record<string, TypedValue> = {};
  for (const field of fields) {
    if (isReadonly(field)) continue;
    const value = values[field.id];
    const type = CAMUNDA_TYPES[field.type] ?? "String";
    if (field.type === "boolean") {
      variables[field.id] = { value: value === true, type };
      continue;
    }
    const text = typeof value === "string" ? value.trim() : "";
    if (text === "") continue;
    if (field.type === "long") variables[field.id] = { value: Number(text), type };
    else if (field.type === "date") {
      variables[field.id] = { value: `${normalizeDate(text) ?? text}T00:00:00.000+0000`, type };
    } else variables[field.id] = { value: text, type };
  }
  return variables;
}

/** Fields for a form that only has Camunda's GET .../form-variables (no form-fields endpoint). */
export function fieldsFromFormVariables(
  variables: Record<string, { value?: unknown; type?: string | null }>,
): FormField[] {
  const types: Record<string, string> = {
    String: "string",
    Long: "long",
    Integer: "long",
    Short: "long",
    Boolean: "boolean",
    Date: "date",
  };
  return Object.entries(variables).map(([name, variable]) => {
    const value = variable.value;
    const plain =
      value === null || value === undefined || ["string", "number", "boolean"].includes(typeof value)
        ? ((value ?? null) as string | number | boolean | null)
        : JSON.stringify(value);
    return {
      id: name,
      label: name,
      type: types[variable.type ?? "String"] ?? "string",
      defaultValue: plain,
      values: [],
      constraints: [],
      datePattern: null,
    };
  });
}

/** HTML attributes mirroring the constraints, so the browser and assistive tech know them too. */
export function inputAttributes(field: FormField): Record<string, string | number | boolean> {
  const attributes: Record<string, string | number | boolean> = {};
  const minLength = number(constraint(field, "minlength"));
  const maxLength = number(constraint(field, "maxlength"));
  const min = number(constraint(field, "min"));
  const max = number(constraint(field, "max"));
  if (minLength !== null) attributes.minLength = minLength;
  if (maxLength !== null) attributes.maxLength = maxLength;
  if (field.type === "long" && min !== null) attributes.min = min;
  if (field.type === "long" && max !== null) attributes.max = max;
  if (isReadonly(field)) attributes.readOnly = true;
  return attributes;
}
