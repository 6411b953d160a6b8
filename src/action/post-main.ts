import * as core from '@actions/core';
import { runPost } from './post.js';
import { execaRunner } from '../util/command.js';
import { escapeLogLine } from '../util/log-escape.js';

/** The action's post step, loaded by src/action/post-entry.ts once the Node version is known to be right. */
await runPost({
  getState: (name) => core.getState(name),
  info: (line) => core.info(escapeLogLine(line)),
  warning: (line) => core.warning(line),
  commands: execaRunner,
}).catch((error: unknown) => core.warning(`post step: ${(error as Error)?.message || String(error)}`));
