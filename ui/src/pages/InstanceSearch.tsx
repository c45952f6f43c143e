// Placeholder until this page lands.
export function InstanceSearch() {
  return (
    <>
      <h1>InstanceSearch</h1>
      <p>Coming soon.</p>
    </>
  );
}
