import { existsSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Fails fast, with the fix, when the local control plane is not running. (Self-contained:
 * jest loads global setup without the module mapper the tests use.)
 */
export default async function globalSetup(): Promise<void> {
  const env = join(process.env.KUBE_SWEEP_CLUSTER_DIR ?? join(process.cwd(), '.cluster'), 'env');
  if (!existsSync(env)) {
    throw new Error(
      `integration tests need the local control plane: ${env} is missing; run 'npm run cluster:up' first`,
    );
  }
}
