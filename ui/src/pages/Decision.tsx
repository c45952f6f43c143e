// Placeholder until this page lands.
export function Decision({ id }: { id: string }) {
  return (
    <>
      <h1>Decision</h1>
      <p>Coming soon: {id}</p>
    </>
  );
}
