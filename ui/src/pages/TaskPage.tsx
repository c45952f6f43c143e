// Placeholder until this page lands.
export function TaskPage({ id }: { id: string }) {
  return (
    <>
      <h1>TaskPage</h1>
      <p>Coming soon: {id}</p>
    </>
  );
}
