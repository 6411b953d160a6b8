/**
 * The plan's sections of the summary (renderMarkdown, markdown.ts): the blast radius, what the
 * teardown will meet, and the stages with their releases. Pure renderers.
 */
import { codeSpan, escapeMarkdown } from './escape.js';
import type { PlanSummary } from './report.js';
import type { BlastRadius, BlastRadiusObject } from '../model/dry-run.js';
import { removalWords } from '../model/teardown-result.js';
import type { Finding } from '../rules/findings.js';
import { firstAction } from './root-causes.js';
import { predictedNamespaces } from './prediction-markdown.js';
import type { Prediction } from '../model/prediction.js';
import { objectName } from './findings-markdown.js';

/** How many objects of one kind of the blast radius are named before "and N more". */
const blastRadiusShown = 100;

/** Pure: up to `blastRadiusShown` items, then how many more the JSON report lists. */
function namedList(items: readonly string[]): string {
  const more = items.length - blastRadiusShown;
  return (
    items.slice(0, blastRadiusShown).join(', ') +
    (more > 0 ? `, and ${more} more (the JSON report lists all)` : '')
  );
}

/**
 * Pure: the blast radius, first in a plan or dry run (before the root causes): the namespaces,
 * the releases and how each goes, and every object outside the namespaces that goes with them.
 */
export function renderBlastRadius(b: BlastRadius): string[] {
  const who = (o: BlastRadiusObject) =>
    `${objectName(o)} (release ${codeSpan(o.release)}, by ${o.by === 'helm' ? 'Helm' : 'kube-sweep'})`;
  return [
    '### What a teardown deletes',
    '',
    `- Namespaces, with everything in them: ${namedList(b.namespaces.map(codeSpan)) || 'none'}.`,
    `- Helm releases: ${namedList(b.releases.map((r) => `${codeSpan(r.release)} (${escapeMarkdown(removalWords(r))})`)) || 'none'}.`,
    `- Cluster-scoped objects: ${namedList(b.clusterScoped.map(who)) || 'none'}.`,
    ...(b.otherNamespaces.length
      ? [`- Objects in namespaces outside the scope: ${namedList(b.otherNamespaces.map(who))}.`]
      : []),
    '',
  ];
}

/**
 * Pure: what the findings say a teardown of this plan will meet, before anything is deleted:
 * each namespace to delete whose deletion will hang (`NamespaceDeletionWillHang`, with the
 * first safe action), and each StatefulSet whose claims its retention policy keeps
 * (`StatefulSetClaimsRetained`), with whether the plan's namespace deletion removes them.
 */
export function planForecast(p: PlanSummary, findings: readonly Finding[]): string[] {
  const deleted = new Set(p.namespacesToDelete);
  const hang = findings.filter((f) => f.code === 'NamespaceDeletionWillHang' && deleted.has(f.object.name));
  const retained = findings.filter((f) => f.code === 'StatefulSetClaimsRetained');
  return [
    ...hang.map(
      (f) =>
        `- ⚠️ **Namespace deletion will hang:** ${escapeMarkdown(f.message)}. ${escapeMarkdown(firstAction(f))}`,
    ),
    ...retained.map(
      (f) =>
        `- Claims that will stay after the uninstall: ${escapeMarkdown(f.message)}; ` +
        (f.object.namespace !== undefined && deleted.has(f.object.namespace)
          ? `this teardown deletes namespace ${codeSpan(f.object.namespace)} afterwards, which removes them.`
          : `this teardown does not delete namespace ${codeSpan(f.object.namespace ?? '')}: they stay.`),
    ),
  ];
}

/** The plan: namespaces, what the teardown will meet, stages and releases, and why this order. */
export function renderPlan(p: PlanSummary, findings: readonly Finding[], prediction?: Prediction): string[] {
  const out = ['### Plan', '', `Namespaces in scope: ${p.namespaces.map(codeSpan).join(', ') || '(none)'}.`];
  // The prediction's namespaces when there is one: a skipped release's namespace is kept, and said so.
  const ns = prediction ? predictedNamespaces(prediction) : { deleted: p.namespacesToDelete, kept: [] };
  if (ns.deleted.length) out.push(`Deleted after the last stage: ${ns.deleted.map(codeSpan).join(', ')}.`);
  if (ns.kept.length) out.push(`Kept (see what the teardown will do): ${ns.kept.map(codeSpan).join(', ')}.`);
  out.push('');
  const forecast = planForecast(p, findings);
  if (forecast.length) out.push(...forecast, '');
  if (p.stages.length === 0) out.push('No Helm release in scope.', '');
  else {
    out.push(
      '| stage | release | status | chart | CRD instances deleted first |',
      '| ---: | --- | --- | --- | --- |',
    );
    const byKey = new Map(p.releases.map((r) => [r.release, r]));
    for (const s of p.stages) {
      for (const key of s.releases) {
        const r = byKey.get(key)!;
        out.push(
          `| ${s.index + 1} | ${codeSpan(key)} | ${escapeMarkdown(r.status)} | ${codeSpan(r.chart)} | ${r.crds.map(codeSpan).join(', ') || '—'} |`,
        );
      }
    }
    out.push('');
  }
  if (p.edges.length) {
    out.push('<details><summary>Why this order</summary>', '');
    for (const e of p.edges)
      out.push(`- ${codeSpan(e.before)} before ${codeSpan(e.after)}: ${escapeMarkdown(e.reason)}`);
    out.push('', '</details>', '');
  }
  return out;
}
