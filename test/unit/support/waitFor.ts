/** Polls `condition` until it holds; past `timeoutMs` it fails, naming `what` it waited for. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 2_000, intervalMs = 10): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
