/**
 * The order in which a teardown deletes GitOps applications: leaf applications first, the
 * applications that manage them after, their controller last (issue 23, S24). An Argo CD
 * Application with `resources-finalizer.argocd.argoproj.io`, or a Flux Kustomization or
 * HelmRelease with `finalizers.fluxcd.io`, deletes what it manages before it goes: when a parent
 * (an app of apps) is deleted together with its children, or after what runs the controller, the
 * children's finalizers wait for a controller that is being torn down. The controller's release
 * goes last already (its CRDs order the releases that hold applications before it, and the stage
 * deletes the instances of its CRDs before uninstalling it: build-plan.ts); this orders the
 * instances among themselves. Pure: read from the instances' metadata only.
 */
/** The GitOps application kinds whose instances manage other objects, by CRD group and kind. */
export const gitopsApplicationKinds: readonly { readonly group: string; readonly kind: string }[] = [
  { group: 'argoproj.io', kind: 'Application' },
  { group: 'kustomize.toolkit.fluxcd.io', kind: 'Kustomization' },
  { group: 'helm.toolkit.fluxcd.io', kind: 'HelmRelease' },
];

/** One instance of a GitOps application kind, as the snapshot lists it (metadata only). */
export interface GitOpsInstance {
  readonly group: string;
  readonly kind: string;
  readonly namespace?: string;
  readonly name: string;
  readonly labels?: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
}

/** An application in a deletion wave: which object to delete. */
export interface GitOpsApplicationRef {
  readonly group: string;
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
}

/** Who manages an object, as its GitOps tracking metadata names it. */
interface Manager {
  readonly group: string;
  readonly kind: string;
  /** Undefined when the tracking names no namespace (Argo CD's plain app name). */
  readonly namespace?: string;
  readonly name: string;
}

/**
 * Pure: the application that manages `o`, from its tracking metadata:
 * - Argo CD's annotation `argocd.argoproj.io/tracking-id: <app>:<group>/<kind>:<namespace>/<name>`
 *   (argo-cd util/argo/resource_tracking.go), where `<app>` is `<namespace>_<name>` for an
 *   Application outside Argo CD's own namespace, else its name;
 * - Flux's labels `kustomize.toolkit.fluxcd.io/name` and `/namespace` (kustomize-controller) and
 *   `helm.toolkit.fluxcd.io/name` and `/namespace` (helm-controller).
 * Argo CD's label tracking (`app.kubernetes.io/instance`) is not read: Helm charts set that label
 * to the release name, which would invent parents.
 */
export function managerOf(o: Pick<GitOpsInstance, 'labels' | 'annotations'>): Manager | undefined {
  const tracking = o.annotations?.['argocd.argoproj.io/tracking-id'];
  if (tracking) {
    const app = tracking.split(':')[0] ?? '';
    const split = app.indexOf('_');
    return split > 0
      ? {
          group: 'argoproj.io',
          kind: 'Application',
          namespace: app.slice(0, split),
          name: app.slice(split + 1),
        }
      : app
        ? { group: 'argoproj.io', kind: 'Application', name: app }
        : undefined;
  }
  for (const [group, kind, prefix] of [
    ['kustomize.toolkit.fluxcd.io', 'Kustomization', 'kustomize.toolkit.fluxcd.io'],
    ['helm.toolkit.fluxcd.io', 'HelmRelease', 'helm.toolkit.fluxcd.io'],
  ] as const) {
    const name = o.labels?.[`${prefix}/name`];
    const namespace = o.labels?.[`${prefix}/namespace`];
    if (name && namespace) return { group, kind, namespace, name };
  }
  return undefined;
}

const idOf = (i: Pick<GitOpsInstance, 'group' | 'kind' | 'namespace' | 'name'>) =>
  `${i.group}/${i.kind}/${i.namespace ?? ''}/${i.name}`;

/** Pure: the instances that `manager` can name (an Argo CD app name without namespace: any namespace). */
function managersIn(instances: readonly GitOpsInstance[], manager: Manager): GitOpsInstance[] {
  return instances.filter(
    (i) =>
      i.group === manager.group &&
      i.kind === manager.kind &&
      i.name === manager.name &&
      (manager.namespace === undefined || i.namespace === manager.namespace),
  );
}

/**
 * Pure: `instances` in deletion waves: wave 0 holds the applications that manage no other
 * application of the list (the leaves), and each application comes one wave after the latest of
 * the applications it manages (an app of apps after its children). An application that names
 * itself is not its own child; applications that manage each other (a cycle, which GitOps tools
 * do not build) go together in one last wave. Each wave is sorted by namespace, kind and name.
 * @throws never; an empty list gives no wave.
 */
export function gitopsWaves(instances: readonly GitOpsInstance[]): GitOpsInstance[][] {
  const children = new Map<string, string[]>(instances.map((i) => [idOf(i), []]));
  for (const child of instances) {
    const manager = managerOf(child);
    if (!manager) continue;
    for (const parent of managersIn(instances, manager))
      if (idOf(parent) !== idOf(child)) children.get(idOf(parent))!.push(idOf(child));
  }
  const wave = new Map<string, number>();
  // Longest path from the leaves: repeat until stable (at most one pass per instance).
  for (let pass = 0; pass <= instances.length; pass++) {
    let changed = false;
    for (const i of instances) {
      const kids = children.get(idOf(i))!;
      if (!kids.every((k) => wave.has(k))) continue;
      const w = Math.max(-1, ...kids.map((k) => wave.get(k)!)) + 1;
      if (wave.get(idOf(i)) !== w) {
        wave.set(idOf(i), w);
        changed = true;
      }
    }
    if (!changed) break;
  }
  const last = Math.max(-1, ...wave.values()) + 1;
  const out: GitOpsInstance[][] = [];
  for (const i of instances) (out[wave.get(idOf(i)) ?? last] ??= []).push(i);
  return out
    .filter((w) => w.length > 0)
    .map((w) =>
      w.sort(
        (a, b) =>
          (a.namespace ?? '').localeCompare(b.namespace ?? '') ||
          a.kind.localeCompare(b.kind) ||
          a.name.localeCompare(b.name),
      ),
    );
}

/** Pure: one line per wave for the plan's log, e.g. `GitOps applications, wave 1 of 2 (…): Application gitops/shop`. */
export function describeWaves(waves: readonly (readonly GitOpsApplicationRef[])[]): string[] {
  return waves.map(
    (w, index) =>
      `GitOps applications, wave ${index + 1} of ${waves.length} (leaf applications first): ` +
      w.map((i) => `${i.kind} ${i.namespace ?? ''}/${i.name}`).join(', '),
  );
}
