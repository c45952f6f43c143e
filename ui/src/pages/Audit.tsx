// Placeholder until this page lands.
export function Audit() {
  return (
    <>
      <h1>Audit</h1>
      <p>Coming soon.</p>
    </>
  );
}
