// The instance page's URL: changes made from the page keep what the slider last wrote there
// (it updates `position` without re-rendering the router).
import { paths } from "../../lib/routes";

export function instanceHref(id: string, changes: Record<string, string | number | null>): string {
  const params = new URLSearchParams(window.location.search);
  for (const [name, value] of Object.entries(changes)) {
    if (value === null) params.delete(name);
    else params.set(name, String(value));
  }
  const text = params.toString();
  return `${paths.instance(id)}${text ? `?${text}` : ""}`;
}
