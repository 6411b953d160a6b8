import { runCliProcess } from './process.js';

/**
 * Entry of the single executable (scripts/sea.mjs bundles it into one CommonJS file, as Node 24's
 * single executable applications require: no top-level await, no chunk loaded from disk).
 * No relaunch: the V8 flags come from the SEA config's `execArgv` (util/relaunch.ts v8Flags),
 * and a SEA would read relaunch flags as its own arguments. An unexpected error exits 2.
 */
runCliProcess().then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`kube-sweep: ${(error as Error)?.stack ?? String(error)}\n`);
    process.exitCode = 2;
  },
);
