/**
 * What the steps of a teardown share: its ports and options (runTeardown's arguments), one
 * stage's context, and how a failed request is told (`describeError`) and judged (`isFatal`).
 */
import type { ApiClient } from '../cluster/api-client.js';
import { KubernetesApiError } from '../cluster/errors.js';
import type { RefusedRequest } from '../kube/refusal.js';
import type { HelmPort } from '../helm/helm-cli.js';
import type { TeardownPlan } from '../plan/build-plan.js';
import type { ReleaseFacts } from '../plan/release-facts.js';
import type { InFlight } from '../util/in-flight.js';
import type { Clock } from '../util/wait.js';
import type { KindAddress, ResourceIndex } from './resource-index.js';
import type { ReleaseOutcome } from '../model/teardown-result.js';

/** The teardown's side effects (runTeardown's ports): the API, Helm, the resource index, logs and groups. */
export interface TeardownPorts {
  readonly api: ApiClient;
  readonly helm: HelmPort;
  readonly resources: ResourceIndex;
  readonly log: (line: string) => void;
  readonly group: <T>(title: string, fn: () => Promise<T>) => Promise<T>;
  readonly clock?: Clock;
  /**
   * The namespaced collections (that serve deletecollection) in which the inventory saw
   * objects of a namespace (`contentCollections`): emptied as soon as the namespace's
   * deletion is accepted. Absent: left to the namespace controller.
   */
  readonly namespaceContent?: (namespace: string) => readonly KindAddress[];
  /**
   * Tracks every `helm uninstall` the teardown starts (util/in-flight.ts). `runTeardown` settles
   * it before it returns or throws; pass one to also await them from outside (a signal handler
   * that must not remove the kubeconfig while helm runs). Default: a new one.
   */
  readonly helmProcesses?: InFlight;
  /** Told each release's outcome as soon as it has one (a cancelled run reports what was removed). */
  readonly onReleaseDone?: (outcome: ReleaseOutcome) => void;
}

/** The settings a teardown runs with (from Settings, engine.ts); durations in ms. */
export interface TeardownOptions {
  /** Group-versions ("metrics.k8s.io/v1beta1") whose discovery failed in the inventory. */
  readonly failedGroupVersions: ReadonlySet<string>;
  /** Budget of the whole teardown in ms. */
  readonly timeoutMs: number;
  /**
   * Budget of each stage in ms, from the stage's start (every wait in it shares it), and of the
   * namespace wait; never past the overall deadline.
   */
  readonly stageTimeoutMs: number;
  readonly uninstallConcurrency: number;
  /**
   * `auto`: a release that `removalWithNamespaces` allows is removed with its namespaces,
   * the others by `helm uninstall`; `helm`: every release by `helm uninstall`.
   */
  readonly uninstallMode: 'auto' | 'helm';
}

/** What the steps of one stage share: the API and Helm ports, the clock and the time left. */
export interface StageContext {
  readonly plan: TeardownPlan;
  readonly options: TeardownOptions;
  readonly ports: TeardownPorts;
  readonly clock: Clock;
  /** ms this stage may still take: to the stage's start + stage-timeout, or the overall deadline if sooner. */
  readonly budget: () => number;
  readonly byKey: ReadonlyMap<string, ReleaseFacts>;
  /** Requests that failed; the verdict cannot be clean when any did. */
  readonly errors: string[];
  /** Requests the API server refused, the whole teardown's (shared by every stage). */
  readonly refusals: RefusedRequest[];
}

/** The message of a failed request: the API error's (status and Status message), else the error's. */
export const describeError = (error: unknown) =>
  error instanceof KubernetesApiError ? error.message : ((error as Error)?.message ?? String(error));

/** A failure that means the cluster is gone (unreachable, TLS): the run stops; others are recorded. */
export const isFatal = (error: unknown) => (error as Error)?.name === 'ClusterAccessError';
