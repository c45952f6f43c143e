// Placeholder until this page lands.
export function Instance({ id }: { id: string }) {
  return (
    <>
      <h1>Instance</h1>
      <p>Coming soon: {id}</p>
    </>
  );
}
