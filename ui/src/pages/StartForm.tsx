// Placeholder until this page lands.
export function StartForm({ id }: { id: string }) {
  return (
    <>
      <h1>StartForm</h1>
      <p>Coming soon: {id}</p>
    </>
  );
}
