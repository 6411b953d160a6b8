/**
 * The prediction (teardown/prediction.ts) as the job summary and the CLI show it: before a
 * teardown (`mode: plan`, a dry run) what will hang and what will stay first, each with its
 * remedy; after one, what was predicted beside what happened, and the surprises. Cluster text
 * is escaped (markdown) or shown with its invisible characters made visible (the CLI does that
 * to every line).
 */
import { codeSpan, escapeMarkdown } from './escape.js';
import type { Report } from './report.js';
import { predictedId, type Prediction, type PredictedRef, type Surprise } from '../model/prediction.js';

const label = (o: { kind: string; namespace?: string; name: string }) =>
  `${o.kind} ${o.namespace ? `${o.namespace}/` : ''}${o.name}`;

/** Pure: `N will hang, N will stay, N will wait, N will go` of a prediction. */
export function predictionCounts(p: Prediction): string {
  const c = p.counts;
  return `${c.hangs} will hang, ${c.stays} will stay, ${c.waits} will wait on a running controller, ${c.goes} will go`;
}

/** Pure: the namespaces a teardown would delete (every predicted one that is not kept), and the kept ones. */
export function predictedNamespaces(p: Prediction): { deleted: string[]; kept: string[] } {
  return {
    deleted: p.namespaces.filter((n) => n.expected !== 'stays').map((n) => n.name),
    kept: p.namespaces.filter((n) => n.expected === 'stays').map((n) => n.name),
  };
}

/**
 * Pure: what happened to each object predicted to hang or stay, after a teardown: `left` when
 * the report's leftovers (or its hook leftovers) name it, else `gone`; undefined before a
 * teardown.
 */
function actualOf(report: Report): ((o: PredictedRef) => 'left' | 'gone') | undefined {
  if (!report.teardown) return undefined;
  const left = new Set([
    ...(report.leftovers ?? []).map((l) => predictedId(l.object)),
    ...report.teardown.hookLeftovers.map(predictedId),
  ]);
  const surprisedGone = new Set(
    (report.surprises ?? []).filter((s) => s.actual === 'gone').map((s) => predictedId(s.object)),
  );
  return (o) => (left.has(predictedId(o)) && !surprisedGone.has(predictedId(o)) ? 'left' : 'gone');
}

/**
 * The markdown of the prediction: a plan or dry run gets "What the teardown will do" (what
 * will hang, then what will stay, each with its evidence and remedy, then the namespaces and
 * releases kept and the counts); a teardown gets "Predicted and what happened" (each object
 * predicted to hang or stay with what became of it) and "Surprises". Nothing when the report
 * has no prediction.
 */
export function renderPrediction(report: Report): string[] {
  const p = report.prediction;
  if (!p) return [];
  const actual = actualOf(report);
  const notGoing = p.objects.filter((o) => o.expected === 'hangs' || o.expected === 'stays');
  const out: string[] = [];
  if (!actual) {
    out.push(
      '### What the teardown will do',
      '',
      `Predicted from the snapshot, before any change: ${predictionCounts(p)}.`,
      '',
    );
    if (notGoing.length > 0) {
      out.push('| will | object | why | before the teardown |', '| --- | --- | --- | --- |');
      for (const o of notGoing)
        out.push(
          `| **${o.expected === 'hangs' ? 'hang' : 'stay'}** | ${codeSpan(label(o.object))} | ${escapeMarkdown(o.evidence)} | ${escapeMarkdown(o.remedy ?? '')} |`,
        );
      out.push('');
    }
  } else {
    out.push('### Predicted and what happened', '');
    if (notGoing.length > 0) {
      out.push('| predicted | object | happened | why it was predicted |', '| --- | --- | --- | --- |');
      for (const o of notGoing)
        out.push(
          `| ${o.expected === 'hangs' ? 'hang' : 'stay'} | ${codeSpan(label(o.object))} | ${actual(o.object) === 'left' ? 'left' : '**gone**'} | ${escapeMarkdown(o.evidence)} |`,
        );
      out.push('');
    } else out.push(`Nothing was predicted to hang or stay (${predictionCounts(p)}).`, '');
  }
  for (const n of p.namespaces.filter((x) => x.expected !== 'goes'))
    out.push(
      `- Namespace ${codeSpan(n.name)} ${actual ? 'was predicted to' : 'will'} ${n.expected === 'hangs' ? 'hang' : 'stay'}: ${escapeMarkdown(n.evidence)}.`,
    );
  for (const r of p.releases.filter((x) => x.expected === 'stays'))
    out.push(
      `- Release ${codeSpan(r.release)} ${actual ? 'was predicted to stay' : 'will stay'}: ${escapeMarkdown(r.evidence)}.`,
    );
  if (p.namespaces.some((x) => x.expected !== 'goes') || p.releases.some((x) => x.expected === 'stays'))
    out.push('');
  if (actual) out.push(...renderSurprises(report.surprises ?? []));
  return out;
}

/** The surprises section of a teardown: each one, or that the prediction held. */
function renderSurprises(surprises: readonly Surprise[]): string[] {
  if (surprises.length === 0)
    return ['### Surprises', '', 'None: everything the teardown left was predicted.', ''];
  return [
    '### Surprises',
    '',
    `${surprises.length} thing(s) happened that the prediction did not say (a defect of the prediction: please report it):`,
    '',
    ...surprises.map((s) => `- ${escapeMarkdown(s.message)}`),
    '',
  ];
}

/**
 * The CLI's lines of the prediction: before a teardown, what will hang and stay (with remedies)
 * and the counts; after one, the surprises (or that there were none).
 */
export function textPrediction(report: Report): string[] {
  const p = report.prediction;
  if (!p) return [];
  const out: string[] = [];
  if (!report.teardown) {
    for (const o of p.objects.filter((x) => x.expected === 'hangs' || x.expected === 'stays')) {
      out.push(`will ${o.expected === 'hangs' ? 'hang' : 'stay'}: ${label(o.object)}: ${o.evidence}`);
      if (o.remedy) out.push(`  before the teardown: ${o.remedy}`);
    }
    for (const n of p.namespaces.filter((x) => x.expected !== 'goes'))
      out.push(`will ${n.expected === 'hangs' ? 'hang' : 'stay'}: namespace ${n.name}: ${n.evidence}`);
    for (const r of p.releases.filter((x) => x.expected === 'stays'))
      out.push(`will stay: release ${r.release}: ${r.evidence}`);
    out.push(`prediction: ${predictionCounts(p)}`);
    return out;
  }
  const surprises = report.surprises ?? [];
  if (surprises.length === 0) out.push('surprises: none (everything the teardown left was predicted)');
  for (const s of surprises) out.push(`surprise: ${s.message}`);
  return out;
}
