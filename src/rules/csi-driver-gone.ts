import type { Inventory } from '../inventory/snapshot.js';
import type { ObjectMetadata } from '../inventory/types.js';
import type { Finding } from './findings.js';
import { livenessReader } from './controller-liveness.js';
import {
  controllerTokens,
  describeControllerSearch,
  findControllers,
  type ControllerSearch,
} from './finalizer-controllers.js';
import { buildFinding } from './finding-builder.js';
import { getYaml, stripFinalizerPatches, stripFinalizersWarning } from './kubectl.js';
import {
  fullObjectsOf,
  type PersistentVolumeObject,
  type VolumeAttachmentObject,
} from './kubernetes-objects.js';
import type { Rule, RuleContext } from './rule.js';
import {
  describeObject,
  formatDuration,
  objectsOf,
  stuckDeletionAge,
  refOf,
  wasListed,
} from './snapshot-views.js';

const rule = 'csi-driver-gone';

/** Prefix of the finalizer the CSI external-attacher puts on PersistentVolumes and VolumeAttachments. */
export const attacherFinalizerPrefix = 'external-attacher/';

/**
 * Pure: the external-attacher's finalizer for a driver: `external-attacher/` + the driver name
 * with every character other than letters, digits, `-` and `_` replaced by `-`
 * (kubernetes-csi/external-attacher pkg/controller/util.go GetFinalizerName, SanitizeDriverName).
 */
export function attacherFinalizer(driver: string): string {
  return `${attacherFinalizerPrefix}${driver.replace(/[^a-zA-Z0-9_-]/g, '-')}`;
}

/** Labels of a driver name too generic to look for its controller with. */
const driverGenericLabels = new Set(['csi', 'driver', 'storage', 'volume', 'block', 'file', 'disk']);

/** What holds volumes for one driver, and whether anything of it runs. */
export interface DriverHold {
  readonly driver: string;
  readonly finalizer: string;
  readonly volumes: ObjectMetadata[];
  readonly attachments: ObjectMetadata[];
  readonly csiDriver: ObjectMetadata | undefined;
  readonly search: ControllerSearch;
}

/** The attacher's leader-election Lease name of a driver (external-attacher's default). */
const leaderLeaseOf = (finalizer: string) =>
  `external-attacher-leader-${finalizer.slice(attacherFinalizerPrefix.length)}`;

/**
 * Pure: every driver whose attacher finalizer is on some PersistentVolume or VolumeAttachment,
 * with what holds and whether anything of the driver runs: a live
 * `external-attacher-leader-<driver>` Lease, or a live workload or Lease whose name, namespace
 * or app label matches the driver name's distinctive labels (`findControllers`, with `csi`,
 * `driver` and the like dropped). Empty when VolumeAttachments were not listed.
 */
export function attacherHolds(inventory: Inventory): DriverHold[] {
  if (!wasListed(inventory, 'storage.k8s.io', 'volumeattachments')) return [];
  const drivers = new Map<string, { volumes: ObjectMetadata[]; attachments: ObjectMetadata[] }>();
  const add = (
    driver: string | undefined,
    meta: ObjectMetadata | undefined,
    into: 'volumes' | 'attachments',
  ) => {
    if (!driver || !meta || !meta.finalizers?.includes(attacherFinalizer(driver))) return;
    const entry = drivers.get(driver) ?? { volumes: [], attachments: [] };
    entry[into].push(meta);
    drivers.set(driver, entry);
  };
  for (const pv of fullObjectsOf(inventory, 'persistentvolumes'))
    add(pv.spec?.csi?.driver, inventory.byUid.get(pv.metadata?.uid ?? ''), 'volumes');
  for (const va of fullObjectsOf(inventory, 'volumeattachments'))
    add(va.spec?.attacher, inventory.byUid.get(va.metadata?.uid ?? ''), 'attachments');
  const liveness = livenessReader(inventory);
  const leases = objectsOf(inventory, 'coordination.k8s.io', 'leases');
  const csiDrivers = objectsOf(inventory, 'storage.k8s.io', 'csidrivers');
  return [...drivers]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([driver, { volumes, attachments }]) => {
      const finalizer = attacherFinalizer(driver);
      const tokens = controllerTokens(driver).filter((t) => !driverGenericLabels.has(t));
      const leader = leases.find((l) => l.name === leaderLeaseOf(finalizer));
      const leaderLiveness = leader && liveness(leader);
      const search: ControllerSearch =
        leader && leaderLiveness?.live
          ? {
              result: 'found',
              tokens,
              candidates: [
                {
                  object: leader,
                  match: 'the attacher leader Lease of the driver',
                  liveness: leaderLiveness,
                },
              ],
            }
          : tokens.length === 0
            ? {
                result: 'unknown',
                reason: `driver name ${driver} has no distinctive label to look for its controller with`,
              }
            : findControllers(inventory, tokens);
      return {
        driver,
        finalizer,
        volumes,
        attachments,
        csiDriver: csiDrivers.find((c) => c.name === driver),
        search,
      };
    });
}

/** Pure: the `attacherHolds` of drivers of which nothing runs (search result `none`). */
export function goneDrivers(inventory: Inventory): DriverHold[] {
  return attacherHolds(inventory).filter((h) => h.search.result === 'none');
}

/** Pure: an evidence line about a held VolumeAttachment: node, volume, attached, deletion (`?` when its object was not read whole). */
function attachmentLine(a: ObjectMetadata, va: VolumeAttachmentObject | undefined): string {
  return (
    `${describeObject(a)}: node ${va?.spec?.nodeName ?? '?'}, volume ${va?.spec?.source?.persistentVolumeName ?? '?'}, ` +
    `attached ${String(va?.status?.attached ?? false)}${a.deletionTimestamp ? `, deletionTimestamp ${a.deletionTimestamp}` : ''}`
  );
}

/** Pure: an evidence line about a held PersistentVolume: reclaim policy, volume handle, phase, deletion. */
function volumeLine(v: ObjectMetadata, pv: PersistentVolumeObject | undefined): string {
  return (
    `${describeObject(v)}: reclaimPolicy ${pv?.spec?.persistentVolumeReclaimPolicy ?? '?'}, volumeHandle ` +
    `${pv?.spec?.csi?.volumeHandle ?? '?'}, phase ${pv?.status?.phase ?? '?'}` +
    `${v.deletionTimestamp ? `, deletionTimestamp ${v.deletionTimestamp}` : ''}`
  );
}

/**
 * Pure: the finalizer `patches`, after one `# WARNING:` line that also names the backend disks
 * (`handles`: `<pv>: <volumeHandle>`) the Delete reclaim will never delete; empty without patches.
 */
function riskyLast(patches: readonly string[], handles: readonly string[]): string[] {
  if (patches.length === 0) return [];
  const warning = handles.length
    ? stripFinalizersWarning.replace(
        /:$/,
        ` (the Delete reclaim never ran: the backend disks stay and must be deleted where they live: ${handles.join(', ')}):`,
      )
    : stripFinalizersWarning;
  return [warning, ...patches];
}

/**
 * The CSIDriverGone finding of one driver whose attacher finalizer holds volumes and
 * attachments: `error` when one of them is held in deletion past the threshold, `warning`
 * otherwise; the remedy warns about the backend disks of volumes with reclaimPolicy Delete.
 */
function driverFinding(inventory: Inventory, hold: DriverHold, context: RuleContext): Finding {
  const { driver, finalizer, volumes, attachments } = hold;
  const pvs = new Map(
    fullObjectsOf(inventory, 'persistentvolumes').map((pv) => [pv.metadata?.uid ?? '', pv]),
  );
  const vas = new Map(
    fullObjectsOf(inventory, 'volumeattachments').map((va) => [va.metadata?.uid ?? '', va]),
  );
  const all = [...attachments, ...volumes];
  const stuck = all.filter((o) => stuckDeletionAge(o.deletionTimestamp, context) !== undefined);
  const oldest = Math.max(0, ...stuck.map((o) => stuckDeletionAge(o.deletionTimestamp, context) ?? 0));
  const handles = volumes.flatMap((v) => {
    const pv = pvs.get(v.uid);
    return pv?.spec?.persistentVolumeReclaimPolicy === 'Delete' && pv.spec.csi?.volumeHandle
      ? [`${v.name}: ${pv.spec.csi.volumeHandle}`]
      : [];
  });
  const count = (n: number, what: string) => `${n} ${what}${n === 1 ? '' : 's'}`;
  return buildFinding(
    rule,
    'CSIDriverGone',
    {
      object: refOf(attachments[0] ?? volumes[0]!),
      subject: `csi driver ${driver}`,
      ...(stuck.length === 0 ? { severity: 'warning' as const } : {}),
      namespaces: [],
      message:
        `${count(volumes.length, 'PersistentVolume')} and ${count(attachments.length, 'VolumeAttachment')} carry ` +
        `${finalizer}, and storage driver ${driver} no longer runs: nothing will detach them` +
        (stuck.length ? ` (${stuck.length} held in deletion for up to ${formatDuration(oldest)})` : '') +
        (handles.length
          ? ', and the backend disks of volumes with reclaimPolicy Delete are never deleted'
          : ''),
      evidence: [
        `the CSI external-attacher of ${driver} puts ${finalizer} on the volumes and attachments it handles, and only it removes it after detaching (kubernetes-csi/external-attacher)`,
        hold.csiDriver
          ? `CSIDriver ${driver} is still registered, but nothing of the driver runs`
          : `no CSIDriver ${driver}`,
        describeControllerSearch(hold.search, `driver ${driver}`),
        `no live Lease ${leaderLeaseOf(finalizer)} (the attacher's leader election)`,
        ...attachments.map((a) => attachmentLine(a, vas.get(a.uid))),
        ...volumes.map((v) => volumeLine(v, pvs.get(v.uid))),
      ],
      remediation: {
        summary:
          `Reinstall storage driver ${driver} and let it detach the volumes and delete them. For the next ` +
          'teardown: delete the claims, wait until their volumes are gone, then uninstall the driver. Only if ' +
          'the driver is gone for good, remove the finalizer from the VolumeAttachments first, then from the ' +
          'PersistentVolumes, and delete the disks in the storage backend by hand.',
        // Safe first, the risky patches last after one warning line (attachments before volumes).
        commands: [
          ...all.map(getYaml),
          ...riskyLast(
            [...stripFinalizerPatches(attachments, finalizer), ...stripFinalizerPatches(volumes, finalizer)],
            handles,
          ),
        ],
      },
    },
    context,
  );
}

/**
 * csi-driver-gone (scenario S23): PersistentVolumes (`spec.csi.driver`) and VolumeAttachments
 * (`spec.attacher`) that carry the CSI external-attacher's finalizer `external-attacher/<driver>`
 * while the driver no longer runs (`goneDrivers`). One finding per driver, about its first
 * VolumeAttachment (or volume): error when any of them has been held in deletion for
 * `stuckAfterSeconds`, warning otherwise (attached volumes that nothing can detach). The remedy
 * names the driver, the detach, and the backend disk (volumeHandle) of each Delete volume that
 * may be left behind (longhorn/longhorn#722, rancher/rancher#22829). stuck-finalizer leaves these
 * finalizers to this rule. Not judged unless VolumeAttachments and every kind that shows a
 * running controller were listed.
 */
export const csiDriverGoneRule: Rule = {
  name: rule,
  title: 'Volumes held by the attacher of a storage driver that no longer runs',
  codes: ['CSIDriverGone'],
  check(inventory, context) {
    return goneDrivers(inventory).map((hold) => driverFinding(inventory, hold, context));
  },
};
