// Next.js calls register() once when the server starts: the poll loops and the actions
// runner start here, in the Node.js runtime only.
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { startVaral } = await import("./server/runtime");
  await startVaral();
}
