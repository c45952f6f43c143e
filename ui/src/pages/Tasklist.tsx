// Placeholder until this page lands.
export function Tasklist() {
  return (
    <>
      <h1>Tasklist</h1>
      <p>Coming soon.</p>
    </>
  );
}
