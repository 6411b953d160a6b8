import { codeSpan, escapeMarkdown } from './escape.js';
import type { Report, Verdict } from './report.js';
import type { DryRunSummary } from '../teardown/dry-run.js';
import type { Blocker } from '../teardown/wait-gone.js';
import type { Finding } from '../rules/findings.js';
import type { RemediationReport } from '../remediate/actions.js';

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

function blockerRow(b: Blocker): string {
  const fin = b.finalizers.length ? b.finalizers.map(codeSpan).join(', ') : '—';
  const state = b.deletionTimestamp ? `deleting since ${b.deletionTimestamp}` : 'not being deleted';
  return `| ${objectName(b)} | ${fin} | ${state} |`;
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

/** Pure: the job summary (GitHub-flavoured markdown) of any report. Cluster text is escaped. */
export function renderMarkdown(report: Report): string {
  const headline = report.dryRun
    ? '📋 kube-sweep: dry run of the teardown (nothing was deleted)'
    : headlines[report.verdict];
  const out: string[] = [`## ${headline}`, ''];
  if (report.error) out.push(escapeMarkdown(report.error), '');
  if (report.cluster.server) {
    out.push(
      `Cluster ${codeSpan(report.cluster.server)} (Kubernetes ${escapeMarkdown(report.cluster.version)}, context ${codeSpan(report.cluster.context)}), mode ${codeSpan(report.mode)}.`,
      '',
    );
  }
  for (const w of report.warnings) out.push(`> ⚠️ ${escapeMarkdown(w)}`, '');

  if (report.plan) {
    const p = report.plan;
    out.push('### Plan', '');
    out.push(`Namespaces in scope: ${p.namespaces.map(codeSpan).join(', ') || '(none)'}.`);
    if (p.namespacesToDelete.length)
      out.push(`Deleted after the last stage: ${p.namespacesToDelete.map(codeSpan).join(', ')}.`);
    out.push('');
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
  }

  if (report.dryRun) out.push(...renderDryRun(report.dryRun));

  if (report.teardown) {
    const t = report.teardown;
    out.push('### Teardown', '');
    out.push('| stage | release | result | duration |', '| ---: | --- | --- | ---: |');
    for (const s of t.stages) {
      for (const r of s.releases) {
        const result =
          r.status === 'uninstalled' ? 'uninstalled' : `**${r.status}**: ${escapeMarkdown(r.message ?? '')}`;
        out.push(`| ${s.index + 1} | ${codeSpan(r.release)} | ${result} | ${seconds(r.durationMs)} |`);
      }
    }
    for (const n of t.namespaces) {
      const result = {
        stuck: '**stuck in Terminating**',
        absent: 'was not there',
        deleted: 'deleted',
        'not-waited': '**deletion requested, not waited for long enough** (the overall `timeout` ran out)',
      }[n.status];
      out.push(`| — | namespace ${codeSpan(n.name)} | ${result} | ${seconds(n.durationMs)} |`);
    }
    out.push('');
    const blockers = t.stages.flatMap((s) => [...s.crdInstances.flatMap((c) => c.remaining), ...s.remaining]);
    if (blockers.length) {
      out.push('#### Still there', '', '| object | finalizers | state |', '| --- | --- | --- |');
      for (const b of blockers) out.push(blockerRow(b));
      out.push('');
    }
    if (t.hookLeftovers.length) {
      out.push(
        `Left by Helm hooks (Helm never deletes hook objects without a delete policy): ${t.hookLeftovers.map(objectName).join(', ')}.`,
        '',
      );
    }
    const errors = [...t.stages.flatMap((s) => s.errors), ...t.errors];
    if (errors.length) {
      out.push(
        'Could not check (the verdict cannot be clean):',
        '',
        ...errors.map((e) => `- ${escapeMarkdown(e)}`),
        '',
      );
    }
    const unverifiable = t.stages.flatMap((s) => s.unverifiableKinds);
    if (unverifiable.length) {
      out.push(
        `Could not check objects of kinds whose API group failed discovery: ${unverifiable.map(codeSpan).join(', ')}.`,
        '',
      );
    }
    const unserved = t.stages.flatMap((s) => s.unservedKinds);
    if (unserved.length) {
      out.push(
        `Teardown order: the manifests name kinds the API no longer serves, so their CRD was deleted before the release that uses them (their objects went with it): ${unserved.map(codeSpan).join(', ')}. Uninstall releases that use a CRD before the one that ships it.`,
        '',
      );
    }
    const kept = t.stages.flatMap((s) => s.kept);
    if (kept.length)
      out.push(
        `Kept on purpose (\`helm.sh/resource-policy: keep\`): ${kept.map(objectName).join(', ')}.`,
        '',
      );
    for (const n of t.namespaces.filter((x) => x.status === 'stuck')) {
      out.push(`#### Namespace ${codeSpan(n.name)} is stuck in Terminating`, '');
      if (n.metadataFinalizers.length) {
        out.push(
          `- held by the namespace's own \`metadata.finalizers\`: ${n.metadataFinalizers.map(codeSpan).join(', ')} (the controller that set them must remove them)`,
        );
      }
      if (!n.blockingConditions.length && !n.metadataFinalizers.length) {
        out.push(
          '- its conditions name no cause yet: the namespace controller may still be working; raise `stage-timeout`',
        );
      }
      for (const c of n.blockingConditions)
        out.push(`- ${codeSpan(c.type)} (${escapeMarkdown(c.reason)}): ${escapeMarkdown(c.message)}`);
      out.push(
        '',
        'Do not clear the namespace finalizer through `/finalize`: that strands its objects in etcd. Fix what the conditions name.',
        '',
      );
    }
  }

  if (report.remediation) out.push(...renderRemediation(report.remediation));
  if (report.findings) out.push(...renderFindings(report.findings, new Set(report.failing ?? [])));
  for (const x of report.suppressed ?? [])
    out.push(`Suppressed by ignore ${codeSpan(x.entry)}: ${x.count}.`, '');

  if (report.inventory) {
    const inv = report.inventory;
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
  }
  return out.join('\n');
}

/** Pure: the actions of `remediate: safe` with their results, and what was left alone. */
export function renderRemediation(r: RemediationReport): string[] {
  const out = [
    '### Remediation (remediate: safe)',
    '',
    `${r.counts.done} action(s) done, ${r.counts.failed} failed, ${r.counts.skipped} finding(s) left alone; ` +
      `${r.findingsBefore} finding(s) before, the findings below are from a scan after it.`,
    '',
  ];
  if (r.results.length > 0) {
    out.push('| action | request | result |', '| --- | --- | --- |');
    for (const x of r.results)
      out.push(
        `| ${escapeMarkdown(x.description)} | ${codeSpan(x.request)} | ${x.status === 'done' ? '✅' : '❌ failed:'} ${escapeMarkdown(x.message)} |`,
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
    '| stage | releases uninstalled | CRD instances deleted first | objects of their manifests |',
    '| ---: | --- | ---: | ---: |',
  ];
  for (const s of d.stages)
    out.push(
      `| ${s.index + 1} | ${s.releases.map(codeSpan).join(', ')} | ${s.crdInstances.length} | ${s.objects.length} |`,
    );
  out.push(
    `| — | namespaces: ${d.namespaces.map(codeSpan).join(', ') || '(none)'} | | ${d.namespaces.length} |`,
    '',
  );
  const objects = d.stages.flatMap((s) => [...s.crdInstances, ...s.objects]);
  if (objects.length) {
    out.push('<details><summary>Objects</summary>', '');
    for (const o of objects) out.push(`- ${objectName(o)}`);
    out.push('', '</details>', '');
  }
  const kept = d.stages.flatMap((s) => s.kept);
  if (kept.length)
    out.push(`Kept on purpose (\`helm.sh/resource-policy: keep\`): ${kept.map(objectName).join(', ')}.`, '');
  return out;
}

const severityIcon: Record<Finding['severity'], string> = { error: '🔴', warning: '🟠', info: '🔵' };

/**
 * Pure: findings grouped by root cause. A root is a finding nothing in the list causes; the
 * findings it causes are listed under it. Remedies are shown as shell blocks, safest first.
 */
export function renderFindings(findings: readonly Finding[], failing: ReadonlySet<string>): string[] {
  const out: string[] = [];
  const keys = new Set(findings.map((f) => f.key));
  const roots = findings.filter((f) => !(f.causedBy ?? []).some((k) => keys.has(k)));
  const children = (key: string) => findings.filter((f) => (f.causedBy ?? []).includes(key));
  out.push(`### Findings (${findings.length}, ${failing.size} over the fail-on policy)`, '');
  if (findings.length === 0) {
    out.push('None.', '');
    return out;
  }
  out.push('| | code | object | finding |', '| --- | --- | --- | --- |');
  for (const f of roots) {
    const mark = failing.has(f.key) ? '**' : '';
    out.push(
      `| ${severityIcon[f.severity]} | ${mark}${codeSpan(f.code)}${mark} | ${objectName(f.object)} | ${escapeMarkdown(f.message)} |`,
    );
  }
  out.push('');
  for (const f of roots) {
    const caused = children(f.key);
    out.push(
      `<details><summary>${severityIcon[f.severity]} ${escapeMarkdown(f.code)}: ${escapeMarkdown(f.object.kind)} ${escapeMarkdown(f.object.namespace ? `${f.object.namespace}/` : '')}${escapeMarkdown(f.object.name)}${caused.length ? ` (root cause of ${caused.length})` : ''}</summary>`,
      '',
    );
    for (const e of f.evidence) out.push(`- ${escapeMarkdown(e)}`);
    if (caused.length) {
      out.push('', 'This causes:');
      for (const c of caused)
        out.push(`- ${codeSpan(c.code)} ${objectName(c.object)}: ${escapeMarkdown(c.message)}`);
    }
    out.push('', `**Remedy:** ${escapeMarkdown(f.remediation.summary)}`, '');
    if (f.remediation.commands.length) {
      out.push('```sh', ...f.remediation.commands.map((c) => c.replace(/```/g, "'''")), '```', '');
    }
    out.push('</details>', '');
  }
  return out;
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
