import { State } from './config/inputs.js';
import { unsupportedNode } from './util/relaunch.js';

/**
 * Entry of the action's post step (action.yml `runs.post`): checks the Node version first (the
 * bundle needs Node 24), then loads src/post-main.ts. The post step needs no relaunch: it only
 * deletes a kind cluster. On an older Node it is silent unless the saved state (STATE_*
 * variables, read without @actions/core) says the main step created a kind cluster.
 */
const tooOld = unsupportedNode(process.versions.node);
if (tooOld) {
  // The main step stopped at the same check, so it created no cluster: nothing to say. Should
  // the state name one it created (another Node ran the main step), it cannot be deleted here.
  const name = process.env[`STATE_${State.kindClusterName}`];
  if (process.env[`STATE_${State.kindClusterCreated}`] === 'true')
    process.stdout.write(`::warning::post step: kind cluster '${name ?? ''}' is left: ${tooOld}\n`);
} else {
  await import('./post-main.js');
}
