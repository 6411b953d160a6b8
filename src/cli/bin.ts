#!/usr/bin/env node
import { relaunchWithFlags, unsupportedNode } from '../util/relaunch.js';

/**
 * Entry of the `kube-sweep` command (package.json bin → dist/cli/index.js): relaunches itself
 * once with kube-sweep's V8 flags (src/util/relaunch.ts); the relaunched process runs the CLI.
 */
const tooOld = unsupportedNode(process.versions.node);
if (tooOld) {
  process.stderr.write(`kube-sweep: ${tooOld}\n`);
  process.exitCode = 2; // could not run
} else {
  const code = await relaunchWithFlags();
  if (code === undefined) await import('./cli-main.js');
  else process.exitCode = code;
}
