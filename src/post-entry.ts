import * as core from '@actions/core';
import { runPost } from './post.js';
import { execaRunner } from './util/command.js';

/** Entry of the action's post step (action.yml `runs.post`). */
await runPost({
  getState: (name) => core.getState(name),
  info: (line) => core.info(line),
  warning: (line) => core.warning(line),
  commands: execaRunner,
}).catch((error: unknown) => core.warning(`post step: ${(error as Error)?.message || String(error)}`));
