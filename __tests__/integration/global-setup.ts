import { existsSync } from 'node:fs';
import { clusterEnvPath } from './support/cluster.js';

/** Fails fast, with the fix, when the local control plane is not running. */
export default async function globalSetup(): Promise<void> {
  if (!existsSync(clusterEnvPath())) {
    throw new Error(
      `integration tests need the local control plane: ${clusterEnvPath()} is missing; run 'npm run cluster:up' first`,
    );
  }
}
