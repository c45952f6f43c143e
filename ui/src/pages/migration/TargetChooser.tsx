// The migration's target: versions of the source's key first (newest first), then every other
// definition, by key.
import type { ProcessDefinition } from "../../api";
import { definitionLabel } from "../../lib/migration";

export function TargetChooser({
  source,
  definitions,
  value,
  onChange,
}: {
  source: ProcessDefinition;
  definitions: ProcessDefinition[];
  value: string;
  onChange: (id: string) => void;
}) {
  const versions = definitions
    .filter((d) => d.key === source.key && d.id !== source.id)
    .sort((a, b) => b.version - a.version);
  const others = definitions
    .filter((d) => d.key !== source.key)
    .sort((a, b) => a.key.localeCompare(b.key) || b.version - a.version);
  return (
    <div class="field">
      <label for="migration-target">Target definition</label>
      <select id="migration-target" value={value} onChange={(e) => onChange(e.currentTarget.value)}>
        <option value="">choose…</option>
        <optgroup label={`Other versions of ${source.key}`}>
          {versions.map((d) => (
            <option key={d.id} value={d.id}>
              {definitionLabel(d)}
            </option>
          ))}
        </optgroup>
        {others.length > 0 && (
          <optgroup label="Other definitions">
            {others.map((d) => (
              <option key={d.id} value={d.id}>
                {definitionLabel(d)}
              </option>
            ))}
          </optgroup>
        )}
      </select>
    </div>
  );
}
