/**
 * The teardown's sections of the summary (renderMarkdown, markdown.ts): each release and
 * namespace with its result, what is still there and why, what could not be checked, what was
 * kept, and the dry run. Pure renderers over the teardown's result model (src/model/).
 */
import { codeSpan, escapeMarkdown } from './escape.js';
import type { DryRunSkip, DryRunSummary } from '../model/dry-run.js';
import { type Blocker, removalWords, type TeardownResult } from '../model/teardown-result.js';
import { inFaceTerms, inputName, type Face } from './face.js';
import { objectName } from './findings-markdown.js';

/** Says why an object was left: its root causes, or the diagnosis's reason ('' when none). */
export type LeftoverWhy = (o: {
  apiVersion: string;
  kind: string;
  namespace?: string;
  name: string;
}) => string;

function blockerRow(b: Blocker, deletedNamespaces: ReadonlySet<string>, why: string): string {
  const fin = b.finalizers.length ? b.finalizers.map(codeSpan).join(', ') : '—';
  const state = b.deletionTimestamp ? `deleting since ${b.deletionTimestamp}` : 'not being deleted';
  return `| ${objectName(b)} | ${fin} | ${state} | ${blockerFate(b, deletedNamespaces)} | ${why || '—'} |`;
}

/**
 * Pure: what is true of an object left after its stage's wait at the end of the run: gone when
 * the teardown then deleted its namespace (the namespace controller deletes all it stores, and
 * a namespace is `deleted` only once it is gone), else still there when its stage ended.
 */
export function blockerFate(
  b: { readonly namespace?: string },
  deletedNamespaces: ReadonlySet<string>,
): string {
  return b.namespace !== undefined && deletedNamespaces.has(b.namespace)
    ? 'gone later, with its namespace'
    : 'still there when its stage ended';
}

/** Names of the namespaces a teardown deleted (and saw gone). */
export function deletedNamespacesOf(t: TeardownResult): ReadonlySet<string> {
  return new Set(t.namespaces.filter((n) => n.status === 'deleted').map((n) => n.name));
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/**
 * What became of the objects a teardown kept (`helm.sh/resource-policy: keep`): a namespaced
 * object whose namespace the teardown deleted went with it (the namespace controller deletes
 * everything a namespace stores); anything else is still there.
 */
export function keptAfterRun(
  t: TeardownResult | undefined,
): { readonly object: TeardownResult['stages'][number]['kept'][number]; readonly fate: string }[] {
  if (!t) return [];
  const deleted = deletedNamespacesOf(t);
  return t.stages
    .flatMap((s) => s.kept)
    .map((object) => ({
      object,
      fate:
        object.namespace !== undefined && deleted.has(object.namespace)
          ? 'then deleted with its namespace'
          : 'still there',
    }));
}

const namespaceResults = (face: Face) =>
  ({
    stuck: '**stuck in Terminating**',
    absent: 'was not there',
    deleted: 'deleted',
    'not-waited': `**deletion requested, not waited for long enough** (the overall ${codeSpan(inputName(face, 'timeout'))} ran out)`,
    refused: '**deletion refused** by the API server',
    protected: '**not deleted**: kube-sweep sent no DELETE',
  }) as const;

/** The result cell of a namespace: its status, and for a refused or protected one the words why. */
const namespaceResult = (n: TeardownResult['namespaces'][number], face: Face) =>
  n.status === 'not-waited' && n.message
    ? `**deletion requested, not confirmed**: ${escapeMarkdown(n.message)}`
    : namespaceResults(face)[n.status] +
      (n.status === 'refused' || n.status === 'protected' ? `: ${escapeMarkdown(n.message ?? '')}` : '');

/** The teardown: each release and namespace with its result, then what is still there and why. */
export function renderTeardown(t: TeardownResult, why: LeftoverWhy, face: Face): string[] {
  const out = ['### Teardown', '', '| stage | release | result | duration |', '| ---: | --- | --- | ---: |'];
  for (const s of t.stages) {
    for (const r of s.releases) {
      const result =
        r.status !== 'uninstalled'
          ? `**${r.status}**: ${escapeMarkdown(r.message ?? '')}`
          : r.method === 'namespace'
            ? 'removed with its namespace (no delete hooks)'
            : 'uninstalled';
      out.push(`| ${s.index + 1} | ${codeSpan(r.release)} | ${result} | ${seconds(r.durationMs)} |`);
    }
  }
  for (const n of t.namespaces)
    out.push(
      `| — | namespace ${codeSpan(n.name)} | ${namespaceResult(n, face)} | ${seconds(n.durationMs)} |`,
    );
  out.push('');
  const blockers = t.stages.flatMap((s) => [...s.crdInstances.flatMap((c) => c.remaining), ...s.remaining]);
  if (blockers.length) {
    out.push(
      "#### Left after their stage's wait",
      '',
      '| object | finalizers | state | after the run | root cause (see Findings) |',
      '| --- | --- | --- | --- | --- |',
    );
    for (const b of blockers) out.push(blockerRow(b, deletedNamespacesOf(t), why(b)));
    out.push('');
  }
  out.push(...renderTeardownGaps(t, face));
  for (const n of t.namespaces.filter((x) => x.status === 'stuck'))
    out.push(...renderStuckNamespace(n, why({ apiVersion: 'v1', kind: 'Namespace', name: n.name }), face));
  return out;
}

/** What the teardown could not check or do in order (the verdict cannot be clean). */
function renderTeardownGaps(t: TeardownResult, face: Face): string[] {
  const out: string[] = [];
  const errors = [...t.stages.flatMap((s) => s.errors), ...t.errors];
  if (errors.length)
    out.push(
      'Could not check (the verdict cannot be clean):',
      '',
      ...errors.map((e) => `- ${escapeMarkdown(inFaceTerms(face, e))}`),
      '',
    );
  const unverifiable = t.stages.flatMap((s) => s.unverifiableKinds);
  if (unverifiable.length)
    out.push(
      `Could not check objects of kinds whose API group failed discovery: ${unverifiable.map(codeSpan).join(', ')}.`,
      '',
    );
  const unserved = t.stages.flatMap((s) => s.unservedKinds);
  if (unserved.length)
    out.push(
      `Teardown order: the manifests name kinds the API no longer serves, so their CRD was deleted before the release that uses them (their objects went with it): ${unserved.map(codeSpan).join(', ')}. Uninstall releases that use a CRD before the one that ships it.`,
      '',
    );
  return out;
}

/** A namespace stuck in Terminating: its own finalizers and the conditions that block it. */
function renderStuckNamespace(n: TeardownResult['namespaces'][number], why: string, face: Face): string[] {
  const out = [`#### Namespace ${codeSpan(n.name)} is stuck in Terminating`, ''];
  if (why) out.push(`- root cause (see Findings): ${why}`);
  if (n.metadataFinalizers.length)
    out.push(
      `- held by the namespace's own \`metadata.finalizers\`: ${n.metadataFinalizers.map(codeSpan).join(', ')} (the controller that set them must remove them)`,
    );
  if (!n.blockingConditions.length && !n.metadataFinalizers.length)
    out.push(
      `- its conditions name no cause yet: the namespace controller may still be working; raise ${codeSpan(inputName(face, 'stage-timeout'))}`,
    );
  for (const c of n.blockingConditions)
    out.push(`- ${codeSpan(c.type)} (${escapeMarkdown(c.reason)}): ${escapeMarkdown(c.message)}`);
  out.push(
    '',
    'Do not clear the namespace finalizer through `/finalize`: that strands its objects in etcd. Fix what the conditions name.',
    '',
  );
  return out;
}

/** Pure: the "would delete" section of a dry run (objects listed in a folded block). */
export function renderDryRun(d: DryRunSummary): string[] {
  const out = [
    '### Dry run: what the teardown would delete',
    '',
    `This was a dry run: nothing was deleted, and the environment was not checked clean. A teardown would delete ${d.objectCount} object(s):`,
    '',
    '| stage | releases removed (how) | CRD instances deleted first | objects of their manifests |',
    '| ---: | --- | ---: | ---: |',
  ];
  const how = (r: DryRunSummary['stages'][number]['removals'][number]) =>
    `${codeSpan(r.release)} (${escapeMarkdown(removalWords(r))}${r.method === 'namespace' ? '' : `: ${escapeMarkdown(r.reason ?? '')}`})`;
  const skipped = (k: DryRunSkip) => `${codeSpan(k.release)} (**skipped**: ${escapeMarkdown(k.reason)})`;
  for (const s of d.stages)
    out.push(
      `| ${s.index + 1} | ${[...(s.removals ?? []).map(how), ...(s.skipped ?? []).map(skipped)].join(', ') || s.releases.map(codeSpan).join(', ')} | ${s.crdInstances.length} | ${s.objects.length} |`,
    );
  out.push(
    `| — | namespaces: ${d.namespaces.map(codeSpan).join(', ') || '(none)'} | | ${d.namespaces.length} |`,
    '',
  );
  const skips = d.stages.flatMap((s) => s.skipped ?? []);
  if (skips.length)
    out.push(
      ...skips.map(
        (k) =>
          `Would skip ${codeSpan(k.release)}, keeping its namespace, as the teardown decides: ${escapeMarkdown(k.reason)}. ` +
          `Foreseen to stay: ${k.instances.map((i) => `${objectName(i.object)} (${escapeMarkdown(i.why)})`).join(', ')}.`,
      ),
      '',
    );
  const objects = d.stages.flatMap((s) => [...s.crdInstances, ...s.objects]);
  if (objects.length) {
    out.push('<details><summary>Objects</summary>', '');
    for (const o of objects) out.push(`- ${objectName(o)}`);
    out.push('', '</details>', '');
  }
  const kept = d.stages.flatMap((s) => s.kept);
  const deleted = new Set(d.namespaces);
  if (kept.length)
    out.push(
      `Helm would keep (\`helm.sh/resource-policy: keep\`): ${kept
        .map(
          (k) =>
            `${objectName(k)} (${k.namespace !== undefined && deleted.has(k.namespace) ? 'then deleted with its namespace' : 'left there'})`,
        )
        .join(', ')}.`,
      '',
    );
  return out;
}
