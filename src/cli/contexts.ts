import pLimit from 'p-limit';
import { listContexts } from '../cluster/kubeconfig.js';
import type { Settings } from '../config/settings.js';
import { reportHead } from '../execute.js';
import { fleetBody } from '../merge.js';
import type { Report } from '../report/report.js';
import { inFlagTerms } from '../report/face.js';

/** The parsed flags (cli/index.ts FlagValues). */
type FlagValues = Readonly<Record<string, string | boolean | undefined>>;

/** How many contexts are scanned at once. */
export const contextConcurrency = 4;

/**
 * The contexts of `scan --context a,b` or `scan --all-contexts` (every context of the
 * kubeconfig), or undefined for a run of one context.
 * @returns the list, undefined, or 2 after writing a usage error to `err` (another command, both
 *   flags, an empty list, a kubeconfig that cannot be read).
 */
export function contextsOf(
  command: string,
  values: FlagValues,
  err: (s: string) => void,
): string[] | undefined | 2 {
  const all = values['all-contexts'] === true;
  const given = typeof values.context === 'string' ? values.context : '';
  if (!all && !given.includes(',')) return undefined;
  const fail = (message: string) => {
    err(`kube-sweep: ${message}\n`);
    return 2 as const;
  };
  if (command !== 'scan')
    return fail(`several contexts (--context a,b or --all-contexts) work with scan only, not ${command}`);
  if (all && given) return fail('--all-contexts and --context exclude each other: drop one');
  let list: string[];
  try {
    list = all
      ? listContexts(typeof values.kubeconfig === 'string' ? values.kubeconfig : '', process.env)
      : given.split(',').map((c) => c.trim());
  } catch (error) {
    return fail(inFlagTerms((error as Error).message));
  }
  const unique = [...new Set(list.filter((c) => c !== ''))];
  if (unique.length === 0)
    return fail(all ? 'the kubeconfig has no context' : `--context '${given}' names no context`);
  return unique;
}

/**
 * Scans each context (at most `contextConcurrency` at once; progress lines tagged with the
 * context) and merges the reports into one fleet report, judged by the first context's
 * settings' `fail-on` (the flags are the same for all).
 */
export async function runContexts(
  contexts: readonly string[],
  values: FlagValues,
  settingsOf: (values: FlagValues) => Settings | 2,
  run: (settings: Settings, err: (s: string) => void) => Promise<Report>,
  err: (s: string) => void,
): Promise<Report> {
  const limit = pLimit(contextConcurrency);
  const first = settingsOf({ ...values, context: contexts[0] });
  const results = await Promise.all(
    contexts.map((context) =>
      limit(async () => {
        const tagged = (s: string) =>
          err(
            s
              .split('\n')
              .filter((l) => l !== '')
              .map((l) => `[${context}] ${l}\n`)
              .join(''),
          );
        const settings = settingsOf({
          ...values,
          context,
          'cluster-name': values['cluster-name'] ?? context,
        });
        const report: Report =
          settings === 2
            ? {
                ...reportHead('scan', { name: context, server: '', version: '', context }),
                verdict: 'error',
                warnings: [],
                error: 'bad flags (above)',
              }
            : await run(settings, tagged);
        return { file: '', report };
      }),
    ),
  );
  const body = fleetBody(results, [], first === 2 ? { failOn: { codes: [] }, failOnNew: false } : first);
  return { ...reportHead('merge', { server: '', version: '', context: '' }), ...body };
}
