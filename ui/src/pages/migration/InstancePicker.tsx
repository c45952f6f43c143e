// Picking the running instances to migrate: a checkbox per instance (the first `listed` of the
// source definition's running instances) and "pick all listed".
import type { ProcessInstance } from "../../api";
import { shortId } from "../../lib/format";
import { paths } from "../../lib/routes";
import { Link } from "../../router";

export function InstancePicker({
  rows,
  total,
  listed,
  picked,
  setPicked,
}: {
  rows: ProcessInstance[];
  total: number;
  listed: number;
  picked: Set<string>;
  setPicked: (picked: Set<string>) => void;
}) {
  if (rows.length === 0) return <p>No running instances.</p>;
  const toggle = (id: string, on: boolean) => {
    const next = new Set(picked);
    if (on) next.add(id);
    else next.delete(id);
    setPicked(next);
  };
  const allPicked = rows.every((row) => picked.has(row.id));
  return (
    <>
      <table class="table" data-testid="migration-instances">
        <thead>
          <tr>
            <th scope="col">
              <label class="check">
                <input
                  type="checkbox"
                  checked={allPicked}
                  onChange={(e) => setPicked(e.currentTarget.checked ? new Set(rows.map((r) => r.id)) : new Set())}
                />
                <span class="visually-hidden">Pick every listed instance</span>
              </label>
            </th>
            <th scope="col">Instance</th>
            <th scope="col">Business key</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={row.id} data-testid={`pick-row-${row.id}`}>
              <td>
                <label class="check">
                  <input
                    type="checkbox"
                    checked={picked.has(row.id)}
                    onChange={(e) => toggle(row.id, e.currentTarget.checked)}
                  />
                  <span class="visually-hidden">Pick instance {row.businessKey ?? row.id}</span>
                </label>
              </td>
              <td>
                <Link href={paths.instance(row.id)} title={row.id}>
                  {shortId(row.id)}
                </Link>
              </td>
              <td>{row.businessKey ?? "—"}</td>
              <td>
                <span class={`chip state-${row.suspended ? "suspended" : "active"}`}>
                  {row.suspended ? "suspended" : "active"}
                </span>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {total > rows.length && (
        <p class="muted">
          The first {listed} of {total} are listed; to migrate every one, choose "All running instances".
        </p>
      )}
    </>
  );
}
