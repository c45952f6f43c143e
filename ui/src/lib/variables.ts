// Editing a process variable: the text a reader types, read as the Camunda type they chose,
// into the body of PUT /process-instance/{id}/variables/{name}.

export const VARIABLE_TYPES = ["String", "Integer", "Long", "Double", "Boolean", "Date", "Json", "Null"] as const;
export type VariableType = (typeof VARIABLE_TYPES)[number];

export type Parsed = { ok: true; body: { value: unknown; type: string } } | { ok: false; message: string };

const INT = { Integer: [-(2 ** 31), 2 ** 31 - 1], Long: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER] } as const;

export function parseVariable(type: string, text: string): Parsed {
  const trimmed = text.trim();
  switch (type) {
    case "String":
      return { ok: true, body: { value: text, type } };
    case "Integer":
    case "Long": {
      const [min, max] = INT[type];
      if (!/^-?\d+$/.test(trimmed)) return { ok: false, message: `${type} needs a whole number` };
      const n = Number(trimmed);
      if (n < min || n > max) return { ok: false, message: `${trimmed} does not fit a ${type}` };
      return { ok: true, body: { value: n, type } };
    }
    case "Double": {
      const n = Number(trimmed);
      if (trimmed === "" || !Number.isFinite(n)) return { ok: false, message: "Double needs a number" };
      return { ok: true, body: { value: n, type } };
    }
    case "Boolean":
      if (trimmed !== "true" && trimmed !== "false") {
        return { ok: false, message: "Boolean is true or false" };
      }
      return { ok: true, body: { value: trimmed === "true", type } };
    case "Date":
      if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3})?([+-]\d{4}|Z)$/.test(trimmed)) {
        return { ok: false, message: "Date looks like 2026-12-06T10:00:00.000+0000" };
      }
      return { ok: true, body: { value: trimmed, type } };
    case "Json":
      try {
        JSON.parse(trimmed);
      } catch {
        return { ok: false, message: "Json needs valid JSON" };
      }
      return { ok: true, body: { value: trimmed, type } };
    case "Null":
      return { ok: true, body: { value: null, type } };
    default:
      return { ok: false, message: `${type} values cannot be edited here` };
  }
}

/** The text an edit field starts with for a variable's current value. */
export function editText(type: string | null | undefined, value: unknown): string {
  if (value === null || value === undefined) return "";
  if (type === "Json" || type === "Object") return typeof value === "string" ? value : JSON.stringify(value);
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function isEditable(type: string | null | undefined): boolean {
  return (VARIABLE_TYPES as readonly string[]).includes(type ?? "");
}
