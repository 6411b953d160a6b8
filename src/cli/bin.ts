#!/usr/bin/env node
import { main } from './index.js';

/** Entry of the `kube-sweep` command (package.json bin → dist/cli/index.js). */
process.exitCode = await main(
  process.argv.slice(2),
  (s) => process.stdout.write(s),
  (s) => process.stderr.write(s),
);
