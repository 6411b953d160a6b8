/**
 * Work that is still running (external processes: `helm uninstall`), kept so that whoever
 * started it can wait for all of it before going on: a run never ends, nor removes what the
 * processes use (a kubeconfig file), while one of them still runs.
 */
export interface InFlight {
  /** Keeps `work` until it settles, and returns it unchanged. */
  track<T>(work: Promise<T>): Promise<T>;
  /**
   * Resolves once every tracked piece of work has settled, including work tracked while it
   * waits; never rejects (each piece's own caller handles its result).
   */
  settle(): Promise<void>;
  /** How many pieces are running now. */
  readonly size: number;
}

/** A new, empty `InFlight`. */
export function inFlight(): InFlight {
  const running = new Set<Promise<unknown>>();
  return {
    track<T>(work: Promise<T>): Promise<T> {
      const settled = work.then(
        () => undefined,
        () => undefined,
      );
      running.add(settled);
      void settled.then(() => running.delete(settled));
      return work;
    },
    async settle() {
      while (running.size > 0) await Promise.all([...running]);
    },
    get size() {
      return running.size;
    },
  };
}
