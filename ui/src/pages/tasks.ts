// The form a task or a start event asks for: flowledger's form-fields when the server has them,
// else Camunda's form-variables read as untyped fields.
import { api } from "../api";
import type { FormField } from "../api/extensions";
import { isNotAvailable } from "../components/common";
import { fieldsFromFormVariables } from "../lib/forms";

export async function taskFields(id: string): Promise<{ fields: FormField[]; typed: boolean }> {
  try {
    return { fields: await api.taskFormFields(id), typed: true };
  } catch (error) {
    if (!isNotAvailable(error)) throw error;
    return { fields: fieldsFromFormVariables(await api.taskFormVariables(id)), typed: false };
  }
}

export async function startFields(id: string): Promise<{ fields: FormField[]; typed: boolean }> {
  try {
    return { fields: await api.startFormFields(id), typed: true };
  } catch (error) {
    if (!isNotAvailable(error)) throw error;
    return { fields: fieldsFromFormVariables(await api.startFormVariables(id)), typed: false };
  }
}
