import { codeBlock, codeSpan, escapeMarkdown } from './escape.js';
import {
  errorKind,
  goneWithNamespace,
  passedWith,
  type InventorySummary,
  type PlanSummary,
  type Report,
  type Verdict,
} from './report.js';
import type { BlastRadius, BlastRadiusObject, DryRunSkip, DryRunSummary } from '../model/dry-run.js';
import { type Blocker, removalWords, type TeardownResult } from '../model/teardown-result.js';
import type { Finding } from '../rules/findings.js';
import type { RemediationReport } from '../remediate/actions.js';
import { objectIdentity } from '../rules/link.js';
import { firstAction, rootCauseLabel, rootCausesOf, type RootCause, type RootCauses } from './root-causes.js';
import { inFaceTerms, inputName, inputSetting, type Face } from './face.js';
import { renderBaseline } from './baseline-markdown.js';
import { renderFleet } from './fleet-markdown.js';
import { renderReap } from './reap-markdown.js';
import { predictedNamespaces, renderPrediction } from './prediction-markdown.js';
import type { Prediction } from '../teardown/prediction.js';

const headlines: Record<Verdict, string> = {
  clean: '✅ kube-sweep: clean',
  leftovers: '❌ kube-sweep: leftovers found',
  planned: '📋 kube-sweep: teardown plan (nothing was changed)',
  complete: '✅ kube-sweep read the whole cluster',
  partial: '⚠️ kube-sweep could not read all of the cluster',
  error: '❌ kube-sweep could not run',
};

function objectName(b: { kind: string; namespace?: string; name: string }): string {
  return codeSpan(`${b.kind} ${b.namespace ? `${b.namespace}/` : ''}${b.name}`);
}

/** Says why an object was left: its root causes, or the diagnosis's reason ('' when none). */
type LeftoverWhy = (o: { apiVersion: string; kind: string; namespace?: string; name: string }) => string;

/**
 * Pure: the "why" of a leftover from the report's diagnosis (`report.leftovers`): its root-cause
 * findings (code and object), or, when no finding explains it, the diagnosis's reason. Empty
 * when the report has no diagnosis for the object.
 */
function leftoverWhyOf(report: Report): LeftoverWhy {
  const byKey = new Map((report.findings ?? []).map((f) => [f.key, f]));
  return (o) => {
    const d = report.leftovers?.find((x) => objectIdentity(x.object) === objectIdentity(o));
    if (!d) return '';
    const causes = d.rootCauses.flatMap((k) => {
      const f = byKey.get(k);
      return f ? [`${codeSpan(f.code)} on ${objectName(f.object)}`] : [];
    });
    return causes.length ? causes.join('; ') : escapeMarkdown(d.reason);
  };
}

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
 * Pure: the job summary (GitHub-flavoured markdown) of any report, also the body of the PR
 * comment and the check run's text. Cluster text is escaped. The order is what a reader needs
 * first: the verdict, then one line per root cause with the first safe action (within the first
 * screen, about 15 lines), then expected notes (warnings, kept objects, informational findings),
 * then the plan, the teardown, remediation, each root cause's evidence and remedy, and the
 * inventory. `face`: whose words name the inputs and settings (action inputs, or the CLI's
 * flags; src/report/face.ts), as the CLI's text output does. `options.hideServer`: leave the
 * API server URL and the kubeconfig context out (the PR comment and the check run, which are
 * posted through the API where the runner's masking does not apply; input publish-server), also
 * where the server URL appears inside an error or warning.
 */
export function renderMarkdown(
  report: Report,
  face: Face = 'action',
  options: { readonly hideServer?: boolean } = {},
): string {
  const markdown = report.fleet
    ? renderFleet(report, report.fleet, face)
    : renderFull(report, face, options.hideServer === true);
  return options.hideServer ? withoutServer(markdown, report.cluster.server) : markdown;
}

/** Stands in for the API server URL where it is not published. */
const serverNotPublished = '(API server not published)';

/** Pure: `markdown` with every occurrence of `server` (as written raw and as escaped) replaced. */
function withoutServer(markdown: string, server: string): string {
  if (!server) return markdown;
  return [server, escapeMarkdown(server)].reduce(
    (text, s) => text.split(s).join(serverNotPublished),
    markdown,
  );
}

function renderFull(report: Report, face: Face, hideServer: boolean): string {
  const roots = report.findings ? rootCausesOf(report.findings, new Set(report.failing ?? [])) : undefined;
  return [
    ...renderHeadline(report, face),
    ...(report.baseline ? renderBaseline(report.baseline, report.findings ?? []) : []),
    ...(report.reap ? renderReap(report.reap, face) : []),
    ...(report.plan?.blastRadius && !report.teardown ? renderBlastRadius(report.plan.blastRadius) : []),
    ...(report.teardown ? [] : renderPrediction(report)),
    ...(report.findings && roots
      ? renderRootCauses(report.findings, roots, new Set(report.failing ?? []), face)
      : []),
    ...renderClusterLine(report, face, hideServer),
    ...renderNotes(report, roots?.notes ?? [], face),
    ...(report.plan ? renderPlan(report.plan, report.findings ?? [], report.prediction) : []),
    ...(report.dryRun ? renderDryRun(report.dryRun) : []),
    ...(report.teardown ? renderTeardown(report.teardown, leftoverWhyOf(report), face) : []),
    ...(report.teardown ? renderPrediction(report) : []),
    ...(report.remediation ? renderRemediation(report.remediation, face) : []),
    ...(roots ? renderRootCauseDetails(roots) : []),
    ...(report.suppressed ?? []).flatMap((x) => [
      `Suppressed by ${inputName(face, 'ignore')} ${codeSpan(x.entry)}: ${x.count}.`,
      '',
    ]),
    ...(report.inventory ? renderInventory(report.inventory) : []),
  ].join('\n');
}

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

/** The verdict, and the error when the run could not do its job. */
function renderHeadline(report: Report, face: Face): string[] {
  const passed = passedWith(
    report,
    face === 'cli' ? '--fail-on' : 'the fail-on policy',
    inputName(face, 'ignore'),
  );
  const headline = report.dryRun
    ? '📋 kube-sweep: dry run of the teardown (nothing was deleted)'
    : passed
      ? `✅ kube-sweep: passed: ${passed}`
      : {
          cancelled: '⛔ kube-sweep: cancelled',
          stopped: '❌ kube-sweep stopped before it finished (what it did is below)',
          'could-not-run': headlines[report.verdict],
          none: headlines[report.verdict],
        }[errorKind(report) ?? 'none'];
  return [
    `## ${headline}`,
    '',
    ...(report.error ? [escapeMarkdown(inFaceTerms(face, report.error)), ''] : []),
  ];
}

/**
 * Which cluster, which version, which mode (after the root causes: context, not news); without
 * the server and context when `hideServer`.
 */
function renderClusterLine(report: Report, face: Face, hideServer: boolean): string[] {
  if (!report.cluster.server) return [];
  if (hideServer)
    return [
      `Kubernetes ${escapeMarkdown(report.cluster.version)}, ${face === 'cli' ? 'command' : 'mode'} ${codeSpan(report.mode)} (the API server and context are not published here: ${inputName(face, 'publish-server')}).`,
      '',
    ];
  return [
    `Cluster ${codeSpan(report.cluster.server)} (Kubernetes ${escapeMarkdown(report.cluster.version)}, context ${codeSpan(report.cluster.context)}), ${face === 'cli' ? 'command' : 'mode'} ${codeSpan(report.mode)}.`,
    '',
  ];
}

/**
 * Expected notes, after the root causes: the run's warnings, objects kept on purpose with what
 * became of them, Helm hook objects, and informational findings that do not fail the step.
 */
function renderNotes(report: Report, notes: readonly RootCause[], face: Face): string[] {
  const kept = keptAfterRun(report.teardown);
  const hooks = report.teardown?.hookLeftovers ?? [];
  const lines = [
    ...report.warnings.map((w) => `- ⚠️ ${escapeMarkdown(inFaceTerms(face, w))}`),
    ...kept.map(
      (k) => `- Kept on purpose (\`helm.sh/resource-policy: keep\`): ${objectName(k.object)}, ${k.fate}.`,
    ),
    ...(hooks.length
      ? [
          `- Left by Helm hooks (Helm never deletes hook objects without a delete policy): ${hooks
            .map((b) => {
              const of = b.release ? [`a hook of ${codeSpan(b.release)}`] : [];
              const why = goneWithNamespace(b, report.teardown!)
                ? 'then deleted with its namespace'
                : leftoverWhyOf(report)(b);
              const said = [...of, ...(why ? [why] : [])];
              return said.length ? `${objectName(b)} (${said.join('; ')})` : objectName(b);
            })
            .join(', ')}.`,
        ]
      : []),
    ...notes.map((n) => `- ${severityIcon[n.finding.severity]} ${rootCauseLine(n)}`),
  ];
  return lines.length ? ['### Notes', '', ...lines, ''] : [];
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
function renderPlan(p: PlanSummary, findings: readonly Finding[], prediction?: Prediction): string[] {
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
function renderTeardown(t: TeardownResult, why: LeftoverWhy, face: Face): string[] {
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

/** What could not be read, then the object counts (folded). */
function renderInventory(inv: InventorySummary): string[] {
  const out: string[] = [];
  if (inv.coverage.length > 0) {
    out.push('### What could not be read', '', 'Results about these resources may be incomplete.', '');
    out.push('| resource | reason | message |', '| --- | --- | --- |');
    for (const gap of inv.coverage) {
      const hint = gap.hint ? ` (grant: ${codeSpan(gap.hint)})` : '';
      out.push(`| ${codeSpan(gap.resource)} | ${gap.reason} | ${escapeMarkdown(gap.message)}${hint} |`);
    }
    out.push('');
  }
  out.push(
    `<details><summary>Inventory: ${inv.objectCount} objects of ${Object.keys(inv.counts).length} resources in ${inv.namespaceCount} namespaces</summary>`,
    '',
    '| resource | objects |',
    '| --- | ---: |',
  );
  for (const [resource, count] of Object.entries(inv.counts))
    out.push(`| ${codeSpan(resource)} | ${count} |`);
  const s = inv.stats;
  out.push(
    '',
    `Discovery ${s.discoveryMs} ms; lists ${s.listMs} ms (${s.resourcesListed} resources, ${s.pages} pages, ${s.requests} requests).`,
    '',
    '</details>',
    '',
  );
  return out;
}

/** Pure: the actions of `remediate: safe` with their results, and what was left alone. */
export function renderRemediation(r: RemediationReport, face: Face = 'action'): string[] {
  const out = [
    `### Remediation (${inputSetting(face, 'remediate', 'safe')})`,
    '',
    `${r.counts.done} action(s) done, ${r.counts.failed} failed, ` +
      (r.counts.refused ? `${r.counts.refused} refused by the API server, ` : '') +
      `${r.counts.skipped} finding(s) left alone; ` +
      `${r.findingsBefore} finding(s) before, the findings below are from a scan after it.`,
    '',
  ];
  if (r.results.length > 0) {
    out.push('| action | request | result |', '| --- | --- | --- |');
    for (const x of r.results)
      out.push(
        `| ${escapeMarkdown(x.description)} | ${codeSpan(x.request)} | ${{ done: '✅', failed: '❌ failed:', refused: '⛔' }[x.status]} ${escapeMarkdown(x.message)} |`,
      );
    out.push('');
  }
  if (r.skipped.length > 0) {
    out.push('<details><summary>Left alone</summary>', '');
    for (const x of r.skipped) out.push(`- ${codeSpan(x.finding)}: ${escapeMarkdown(x.reason)}`);
    out.push('', '</details>', '');
  }
  return out;
}

/** Pure: the "would delete" section of a dry run (objects listed in a folded block). */
function renderDryRun(d: DryRunSummary): string[] {
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

const severityIcon: Record<Finding['severity'], string> = { error: '🔴', warning: '🟠', info: '🔵' };

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

/** `root cause of N: CodeA, CodeB` (each code once), or '—' when it explains nothing. */
function explainsText(r: RootCause): string {
  if (r.explains.length === 0) return '—';
  const codes = [...new Set(r.explains.map((f) => f.code))];
  return `root cause of ${r.explains.length}: ${codes.map(codeSpan).join(', ')}`;
}

/** The codes of an entry (its finding and the others about the same object), failing ones in bold. */
function codesOf(r: RootCause, failing: ReadonlySet<string>): string {
  return [r.finding, ...r.sameObject]
    .map((f) => (failing.has(f.key) ? `**${codeSpan(f.code)}**` : codeSpan(f.code)))
    .join(' + ');
}

/** One line of a note: code, object, what it explains, the message. */
function rootCauseLine(r: RootCause): string {
  return `${codeSpan(r.finding.code)} ${objectName(r.finding.object)}: ${escapeMarkdown(r.finding.message)}`;
}

/**
 * Pure: the first screen of the findings: a heading that counts root causes and the findings
 * they explain separately, then one table row per root cause (severity, code, object, how many
 * findings it explains, the first safe action). Informational entries that do not fail the step
 * are left to the notes; evidence and remedies to `renderRootCauseDetails`.
 */
export function renderRootCauses(
  findings: readonly Finding[],
  roots: RootCauses,
  failing: ReadonlySet<string>,
  face: Face = 'action',
): string[] {
  if (findings.length === 0) return ['### Findings: none', ''];
  const policy = face === 'cli' ? '--fail-on' : 'the fail-on policy';
  const over =
    failing.size === findings.length && failing.size > 0
      ? `all ${failing.size} over ${policy}`
      : `${failing.size} over ${policy}`;
  const parts = [
    plural(roots.causes.length, 'root cause'),
    plural(roots.linked, 'linked finding'),
    ...(roots.notes.length ? [plural(roots.notes.length, 'note')] : []),
  ];
  const out = [`### ${parts.join(', ')} (${plural(findings.length, 'finding')}, ${over})`, ''];
  if (roots.causes.length === 0)
    return [...out, `No finding crosses ${policy}: they are informational notes (below).`, ''];
  out.push('| | code | object | explains | first safe action |', '| --- | --- | --- | --- | --- |');
  for (const r of roots.causes)
    out.push(
      `| ${severityIcon[r.finding.severity]} | ${codesOf(r, failing)} | ${r.group.length ? escapeMarkdown(rootCauseLabel(r)) : objectName(r.finding.object)} | ${explainsText(r)} | ${escapeMarkdown(firstAction(r.finding))} |`,
    );
  out.push(
    '',
    'Evidence and the whole remedy of each, safest first: under **Root causes in detail** below.',
    '',
  );
  return out;
}

/**
 * Pure: each root cause (and note) folded: its message and evidence, the findings it explains,
 * and its remedy as a shell block, safest first. The other findings about the same object are
 * shown in the same entry, so one object has one remedy sequence.
 */
export function renderRootCauseDetails(roots: RootCauses): string[] {
  const entries = [...roots.causes, ...roots.notes];
  if (entries.length === 0) return [];
  const out = ['### Root causes in detail', ''];
  for (const r of entries) {
    const f = r.finding;
    const title = `${severityIcon[f.severity]} ${escapeMarkdown(f.code)}: ${escapeMarkdown(rootCauseLabel(r))}${r.explains.length ? ` (root cause of ${r.explains.length})` : ''}`;
    out.push(`<details><summary>${title}</summary>`, '', escapeMarkdown(f.message), '');
    for (const e of f.evidence) out.push(`- ${escapeMarkdown(e)}`);
    if (r.group.length) {
      out.push('', 'The same remedy covers these findings too:');
      for (const g of r.group)
        out.push(`- ${codeSpan(g.code)} ${objectName(g.object)}: ${escapeMarkdown(g.message)}`);
    }
    for (const other of r.sameObject) {
      out.push('', `Also about this object: ${codeSpan(other.code)}: ${escapeMarkdown(other.message)}`, '');
      for (const e of other.evidence) out.push(`- ${escapeMarkdown(e)}`);
    }
    if (r.explains.length) {
      out.push('', 'This causes:');
      for (const c of r.explains)
        out.push(`- ${codeSpan(c.code)} ${objectName(c.object)}: ${escapeMarkdown(c.message)}`);
    }
    out.push('', `**Remedy:** ${escapeMarkdown(f.remediation.summary)}`, '');
    if (f.remediation.commands.length) out.push(...codeBlock('sh', f.remediation.commands), '');
    out.push('</details>', '');
  }
  return out;
}

/**
 * Pure: the findings section on its own (root causes, then their details): what the summary
 * shows of `findings`. `failing`: keys over the fail-on policy.
 */
export function renderFindings(findings: readonly Finding[], failing: ReadonlySet<string>): string[] {
  const roots = rootCausesOf(findings, failing);
  return [...renderRootCauses(findings, roots, failing), ...renderRootCauseDetails(roots)];
}

/** GitHub's limit for one step's job summary is 1 MiB; stay under it with room for the note. */
export const summaryLimitBytes = 1024 * 1024 - 4096;

/**
 * Pure: cuts a rendered summary to `maxBytes` at a block boundary (a blank line: tables have
 * none inside, so a table is never cut), closes an open code fence or `<details>`, and says
 * what was cut and where the whole report is.
 */
export function fitSummary(markdown: string, reportPath: string, maxBytes = summaryLimitBytes): string {
  return fitMarkdown(
    markdown,
    maxBytes,
    `> ✂️ The summary was cut to stay under GitHub's 1 MiB limit; the whole report is in ${codeSpan(reportPath)} (output \`report-path\`).`,
  );
}

/**
 * Pure: the general form of `fitSummary`: `markdown` unchanged when it takes at most
 * `maxBytes` bytes of UTF-8, else cut at a block boundary with `note` (one markdown paragraph)
 * appended, the whole at most `maxBytes` bytes. Bytes bound characters from above, so this
 * also keeps a text under a limit counted in characters (GitHub's comment and check-run limits).
 */
export function fitMarkdown(markdown: string, maxBytes: number, note: string): string {
  if (Buffer.byteLength(markdown) <= maxBytes) return markdown;
  const tail = `\n\n${note}\n`;
  let cut = Buffer.from(markdown)
    .subarray(0, Math.max(0, maxBytes - Buffer.byteLength(tail) - 32))
    .toString('utf8');
  cut = cut.slice(0, Math.max(0, cut.lastIndexOf('\n\n')));
  if ((cut.match(/^```/gm) ?? []).length % 2 === 1) cut += '\n```';
  const open = (cut.match(/<details>/g) ?? []).length - (cut.match(/<\/details>/g) ?? []).length;
  for (let i = 0; i < open; i++) cut += '\n\n</details>';
  return cut + tail;
}
