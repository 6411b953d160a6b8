/** A clean-up step run when SIGINT or SIGTERM ends the process (may be async). */
export type Cleanup = () => void | Promise<void>;

const cleanups = new Set<Cleanup>();
let cleaning = false;

let held = 0;

/**
 * Holds the exit on a signal: while held, SIGINT and SIGTERM run no clean-up and do not end the
 * process; the holder handles them (the CLI's cancellation, cli/cancel.ts: it stops the run,
 * lets its normal path clean up, reports what was done and exits 130 or 143 itself).
 * @returns a function that releases the hold (call it once, when the run ended).
 */
export function holdSignalExit(): () => void {
  held += 1;
  let released = false;
  return () => {
    if (!released) held -= 1;
    released = true;
  };
}

function onSignal(signal: 'SIGINT' | 'SIGTERM'): void {
  if (held > 0) return;
  // A Ctrl-C reaches the launcher and the relaunched process, and the launcher passes it on:
  // the same signal can arrive twice. Clean-ups already running are let to finish.
  if (cleaning) return;
  cleaning = true;
  void (async () => {
    for (const cleanup of [...cleanups].reverse()) {
      try {
        await cleanup();
      } catch {
        // each clean-up reports its own failure; the next one still runs
      }
    }
    process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
  })();
}

/**
 * Registers `cleanup` to run when SIGINT or SIGTERM arrives, before the process exits with
 * 128 + the signal's number (130, 143). Clean-ups run once, latest registered first, each
 * awaited; a signal that arrives while they run is ignored (so a slow one, like deleting a
 * kind cluster, is not cut short). The signal handlers are installed while any clean-up is
 * registered, and removed with the last one.
 * @returns a function that unregisters `cleanup` (call it once the normal path has cleaned up).
 */
export function cleanupOnSignal(cleanup: Cleanup): () => void {
  if (cleanups.size === 0) {
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  }
  cleanups.add(cleanup);
  return () => {
    if (!cleanups.delete(cleanup) || cleanups.size > 0) return;
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  };
}
