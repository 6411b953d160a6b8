/**
 * The objects Helm hooks of the torn-down releases created and left (Helm never deletes a hook
 * object without a delete policy), each with its release.
 */
import type { ReleaseFacts } from '../plan/release-facts.js';
import type { Clock } from '../util/wait.js';
import { hookObjects } from './release-objects.js';
import { describeError, type TeardownPorts } from './teardown-context.js';
import type { HookLeftover } from '../model/teardown-result.js';
import { waitUntilGone } from './wait-gone.js';

/**
 * The objects that the releases' Helm hooks created and that are still there (Helm never
 * deletes a hook object without a delete policy), each with the release whose hook made it
 * (the first, should two releases' hooks name the same object). A request that fails is added
 * to `errors`.
 * @throws ClusterAccessError when the cluster stops answering
 */
export async function findHookLeftovers(
  releases: readonly ReleaseFacts[],
  ports: TeardownPorts,
  clock: Clock,
  errors: string[],
): Promise<HookLeftover[]> {
  const releaseOf = new Map<string, string>();
  const hooks = releases.flatMap((r) =>
    hookObjects(r, ports.resources).map((o) => {
      if (!releaseOf.has(hookId(o))) releaseOf.set(hookId(o), r.key);
      return o;
    }),
  );
  if (hooks.length === 0) return [];
  try {
    const left = await waitUntilGone(ports.api, hooks, { timeoutMs: 0, clock });
    return left.map((b) => {
      const release = releaseOf.get(hookId(b)) ?? '';
      ports.log(
        `left by a Helm hook of ${release}: ${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`,
      );
      return { ...b, release };
    });
  } catch (error) {
    if ((error as Error)?.name === 'ClusterAccessError') throw error;
    const message = `checking for objects left by Helm hooks: ${describeError(error)}`;
    ports.log(`could not check: ${message}`);
    errors.push(message);
    return [];
  }
}

/** Pure: one object's identity among hook objects (apiVersion, kind, namespace, name). */
export const hookId = (b: { apiVersion: string; kind: string; namespace?: string; name: string }) =>
  `${b.apiVersion}/${b.kind}/${b.namespace ?? ''}/${b.name}`;
