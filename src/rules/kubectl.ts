/**
 * Remediation command lines (kubectl, helm). Names come from the cluster and are untrusted:
 * RBAC object names are only path-segment validated (quotes, `;`, `$()` and spaces pass) and
 * User/Group subject names are not validated at all. So every command is built as a list of
 * words and printed by `command`, which quotes each one (POSIX single quotes,
 * src/util/shell-quote.ts); values inside a JSON patch are built as JSON and the patch is quoted
 * as one word. A line that would hold a line break, control, bidi or zero-width character is
 * not printed (`showableCommands`, applied to every finding by `buildFinding`).
 */
import { finalizerRemovalOps } from '../inventory/held-objects.js';
import type { ObjectMetadata } from '../inventory/types.js';
import { shellCommand, unshowableCharacter } from '../util/shell-quote.js';
import { typeNameOf } from './snapshot-views.js';

/** Pure: one command line of `words`, each quoted as one shell word (`shellCommand`). */
export function command(...words: readonly string[]): string {
  return shellCommand(words);
}

/** `['-n', ns]` when namespaced, `[]` otherwise. */
export function namespaceArgs(namespace: string | undefined): string[] {
  return namespace !== undefined ? ['-n', namespace] : [];
}

/**
 * The words after a kubectl verb that name object `o`: `<type> <name> [-n ns] [flags...]`, or
 * `<type> [-n ns] [flags...] -- <name>` when the name starts with `-`. RBAC names are only
 * path-segment validated, so a ClusterRoleBinding may be named `--all`; after `--` it is a name,
 * not the flag that would make `kubectl delete` delete every binding.
 */
export function objectArgs(o: ObjectMetadata, ...flags: readonly string[]): string[] {
  const type = typeNameOf(o);
  const ns = namespaceArgs(o.namespace);
  return o.name.startsWith('-') ? [type, ...ns, ...flags, '--', o.name] : [type, o.name, ...ns, ...flags];
}

/** `kubectl get <type> <name> [-n ns] -o yaml` (`objectArgs`). */
export function getYaml(o: ObjectMetadata): string {
  return command('kubectl', 'get', ...objectArgs(o, '-o', 'yaml'));
}

/** `kubectl delete <type> <name> [-n ns] [extra...]` (`objectArgs`). */
export function deleteObject(o: ObjectMetadata, ...extra: readonly string[]): string {
  return command('kubectl', 'delete', ...objectArgs(o, ...extra));
}

/** `kubectl patch <type> <name> [-n ns] --type <json|merge> -p <patch as JSON>`: the patch is one quoted word. */
export function patchObject(o: ObjectMetadata, type: 'json' | 'merge', patch: unknown): string {
  return command('kubectl', 'patch', ...objectArgs(o, '--type', type, '-p', JSON.stringify(patch)));
}

/** The warning that precedes every command that strips finalizers. */
export const stripFinalizersWarning =
  '# WARNING: removing finalizers skips the cleanup their controller would do (external resources, data); ' +
  'only after confirming that controller is gone for good and nothing outside the cluster needs cleaning up:';

/**
 * The JSON patches (one command per object) that remove `finalizer` (default: every finalizer
 * the snapshot saw on the object), each at the index the snapshot saw and guarded by a `test`
 * op, so that the patch fails instead of removing another finalizer if the list changed
 * (RFC 6902: ops apply in order, the removes from the highest index down). Never a merge patch
 * that clears `metadata.finalizers` whatever it holds. An object without the finalizer (or
 * without any) gets no line. No warning line: see `stripFinalizers`.
 */
export function stripFinalizerPatches(objects: readonly ObjectMetadata[], finalizer?: string): string[] {
  return objects.flatMap((o) => {
    const ops = finalizerRemovalOps(o.finalizers ?? [], finalizer);
    return ops.length ? [patchObject(o, 'json', ops)] : [];
  });
}

/**
 * The risky last resort, preceded by its warning line: `stripFinalizerPatches` of the objects;
 * empty when no object has the finalizer.
 */
export function stripFinalizers(objects: readonly ObjectMetadata[], finalizer?: string): string[] {
  const patches = stripFinalizerPatches(objects, finalizer);
  return patches.length ? [stripFinalizersWarning, ...patches] : [];
}

/** The line that forbids the worst fix of a stuck namespace (it strands objects in etcd, scenario S10). */
export const neverFinalizeNamespace =
  '# Do NOT clear spec.finalizers of the namespace or PUT /api/v1/namespaces/<ns>/finalize: its objects would stay in etcd, unreachable';

/** Start of the line that stands in for a command that cannot be shown. */
export const notShownPrefix = '# not shown:';

/**
 * Pure: `lines` with every line that holds a character that cannot be shown safely (a line
 * break, a control, bidi or zero-width character: `unshowableCharacter`) replaced by a
 * `# not shown:` line that says why. Such a value would end the line inside a markdown code block, and a pasted comment
 * would run what follows its line break; quoting cannot make that safe to read.
 */
export function showableCommands(lines: readonly string[]): string[] {
  return lines.map((line) => {
    const bad = unshowableCharacter(line);
    if (bad === undefined) return line;
    const what = line.startsWith('#') ? 'a comment' : 'a command';
    return (
      `${notShownPrefix} ${what} here names a value with character ${bad} (a line break, control, bidi or zero-width character) ` +
      'that cannot be shown safely; read the object with kubectl get -o json and act on it by hand'
    );
  });
}
