import { unsupportedNode } from './util/relaunch.js';

/**
 * Entry of the action's post step (action.yml `runs.post`): checks the Node version first (the
 * bundle needs Node 24), then loads src/post-main.ts. The post step needs no relaunch: it only
 * deletes a kind cluster.
 */
const tooOld = unsupportedNode(process.versions.node);
if (tooOld) {
  process.stdout.write(`::warning::post step: ${tooOld}\n`);
} else {
  await import('./post-main.js');
}
