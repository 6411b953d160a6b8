import { State } from '../config/inputs.js';
import { deleteKindCluster } from '../cluster/kind.js';
import type { CommandRunner } from '../util/command.js';

/** What the post step needs: the state the main step saved, a logger and a command runner. */
export interface PostPorts {
  readonly getState: (name: string) => string;
  readonly info: (line: string) => void;
  readonly warning: (line: string) => void;
  readonly commands: CommandRunner;
}

/**
 * The action's post step (runs even when the job failed): deletes the kind cluster that the
 * main step created, unless `kind-keep: true`. A cluster that was reused is never deleted.
 * A failed delete is a warning: the job's result stays what the main step decided.
 */
export async function runPost(ports: PostPorts): Promise<'deleted' | 'kept' | 'nothing'> {
  const name = ports.getState(State.kindClusterName);
  if (!name || ports.getState(State.kindClusterCreated) !== 'true') return 'nothing';
  if (ports.getState(State.kindKeep) === 'true') {
    ports.info(`keeping kind cluster '${name}' (kind-keep: true)`);
    return 'kept';
  }
  try {
    await deleteKindCluster(name, ports.commands);
    ports.info(`deleted kind cluster '${name}'`);
    return 'deleted';
  } catch (error) {
    ports.warning((error as Error).message);
    return 'nothing';
  }
}
