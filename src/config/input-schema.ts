/**
 * The zod schema of every input, in the order of inputs.ts, and the rules across inputs (which
 * inputs need or exclude which, per mode) in one place. settings.ts turns its output into Settings.
 */
import { z } from 'zod';
import { byFace, inputRef, Inputs, inputSet, inputWord } from '../words/input-words.js';
import { boolean, duration, integer, items, oneOf, optionalDuration } from './input-values.js';
import { environmentPatterns, labelKey, labelRequirement, reapIssues } from './reap-inputs.js';
import { labelSelector, namespacePatterns, orderLines, releaseRefs } from './scope-inputs.js';
import { failOn, finalizerNames, ignoreEntries } from './scan-inputs.js';
import { isDns1123Label } from '../kube/object-names.js';

/** Every input parsed; an issue names its input in `path[0]` (else `mode`, parseSettings). */
export const inputSchema = z
  .object({
    [Inputs.mode]: oneOf(Inputs.mode, ['teardown', 'plan', 'scan', 'inventory', 'merge', 'reap']),
    [Inputs.reports]: z.string().transform((raw) => items(raw)),
    [Inputs.environments]: environmentPatterns(),
    [Inputs.environmentLabel]: labelKey(Inputs.environmentLabel),
    [Inputs.olderThan]: optionalDuration(Inputs.olderThan),
    [Inputs.prState]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '' || text === 'closed') return text === 'closed';
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord(Inputs.prState)} is '${raw}'; it takes closed (or nothing)`,
      });
      return z.NEVER;
    }),
    [Inputs.abandonedLabel]: labelRequirement(),
    [Inputs.keepLabel]: z.string().transform((s) => s.trim()),
    [Inputs.maxEnvironments]: integer(Inputs.maxEnvironments, 1, 1000),
    [Inputs.reapConcurrency]: integer(Inputs.reapConcurrency, 1, 32),
    [Inputs.scanScope]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '' || text === 'environment' || text === 'cluster') return text;
      ctx.addIssue({
        code: 'custom',
        message: `${inputWord('scan-scope')} is '${raw}'; it takes environment or cluster`,
      });
      return z.NEVER;
    }),
    [Inputs.failOn]: failOn(),
    [Inputs.failOnNew]: boolean(Inputs.failOnNew),
    [Inputs.baseline]: z.string().transform((s) => s.trim()),
    [Inputs.stuckAfter]: duration(Inputs.stuckAfter, false),
    [Inputs.ignore]: ignoreEntries(),
    [Inputs.remediate]: oneOf(Inputs.remediate, ['none', 'safe']),
    [Inputs.etcdEndpoint]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (text === '') return '';
      if (!/^https?:\/\/[^/\s]+\/?$/.test(text)) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('etcd-endpoint')} is '${raw}'; write one etcd client URL such as http://127.0.0.1:2379 or https://10.0.0.5:2379`,
        });
        return z.NEVER;
      }
      return text;
    }),
    [Inputs.etcdTls]: z.string().transform((raw, ctx) => {
      const parts = items(raw);
      if (parts.length === 0) return undefined;
      if (parts.length !== 3) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('etcd-tls')} is '${raw}'; give three PEM file paths: CA, client certificate, client key (comma-separated)`,
        });
        return z.NEVER;
      }
      return { ca: parts[0]!, cert: parts[1]!, key: parts[2]! };
    }),
    [Inputs.forceRemoveFinalizers]: finalizerNames(),
    [Inputs.namespaces]: namespacePatterns(Inputs.namespaces),
    [Inputs.protect]: namespacePatterns(Inputs.protect),
    [Inputs.maxNamespaces]: integer(Inputs.maxNamespaces, 1, 100000),
    [Inputs.requireMatch]: boolean(Inputs.requireMatch),
    [Inputs.selector]: labelSelector(),
    [Inputs.releases]: releaseRefs(),
    [Inputs.deleteNamespaces]: boolean(Inputs.deleteNamespaces),
    [Inputs.dryRun]: boolean(Inputs.dryRun),
    [Inputs.order]: orderLines(),
    [Inputs.timeout]: duration(Inputs.timeout),
    [Inputs.stageTimeout]: duration(Inputs.stageTimeout),
    [Inputs.helm]: z.string().transform((s) => s.trim()),
    [Inputs.uninstallConcurrency]: integer(Inputs.uninstallConcurrency, 1, 32),
    [Inputs.uninstallMode]: oneOf(Inputs.uninstallMode, ['auto', 'helm']),
    [Inputs.awaitPredictedHangs]: boolean(Inputs.awaitPredictedHangs),
    [Inputs.cluster]: oneOf(Inputs.cluster, ['existing', 'kind']),
    [Inputs.kubeconfig]: z.string(),
    [Inputs.context]: z.string().transform((s) => s.trim()),
    [Inputs.clusterName]: z.string().transform((s) => s.trim()),
    [Inputs.kindClusterName]: z.string().transform((raw, ctx) => {
      const text = raw.trim();
      if (!isDns1123Label(text) || text.length > 50) {
        ctx.addIssue({
          code: 'custom',
          message: `${inputWord('kind-cluster-name')} is '${raw}'; use lower-case letters, digits and '-' (at most 50)`,
        });
        return z.NEVER;
      }
      return text;
    }),
    [Inputs.kindConfig]: z.string().transform((s) => s.trim()),
    [Inputs.kindNodeImage]: z.string().transform((s) => s.trim()),
    [Inputs.kindWait]: duration(Inputs.kindWait),
    [Inputs.kindKeep]: boolean(Inputs.kindKeep),
    [Inputs.requestTimeout]: duration(Inputs.requestTimeout),
    [Inputs.listConcurrency]: integer(Inputs.listConcurrency, 1, 64),
    [Inputs.pageSize]: integer(Inputs.pageSize, 1, 10000),
    [Inputs.reportPath]: z.string().transform((s) => s.trim()),
    [Inputs.prComment]: boolean(Inputs.prComment),
    [Inputs.checkRun]: boolean(Inputs.checkRun),
    [Inputs.publishServer]: boolean(Inputs.publishServer),
    [Inputs.githubToken]: z.string().transform((s) => s.trim()),
  })
  .superRefine((v, ctx) => {
    // An empty github-token with pr-comment/check-run is not refused here: publishing is a side
    // channel (report/github/publish.ts warns and records it), and the sweep runs.
    if (v['etcd-tls'] && !v['etcd-endpoint'].startsWith('https://')) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.etcdTls],
        message: `${inputWord(Inputs.etcdTls)} needs an https ${inputRef(Inputs.etcdEndpoint)}; set ${inputRef(Inputs.etcdEndpoint)} to https://... or drop ${inputRef(Inputs.etcdTls)}`,
      });
    }
    if (v['force-remove-finalizers'].length > 0 && v.remediate !== 'safe') {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.forceRemoveFinalizers],
        message: `${inputWord(Inputs.forceRemoveFinalizers)} only acts with ${inputSet(Inputs.remediate, 'safe')}; set ${inputSet(Inputs.remediate, 'safe')} or drop ${inputRef(Inputs.forceRemoveFinalizers)}`,
      });
    }
    if (v.mode === 'scan' && v['dry-run'] && v.remediate === 'safe') {
      // A scan's remediation has no dry run: it would act regardless (a tester's finding).
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.dryRun],
        message: `${inputWord(Inputs.dryRun)} does not apply to a scan's remediation, which would act anyway: set ${inputSet(Inputs.remediate, 'none')} to see the findings and their remedies without acting, or drop ${inputRef(Inputs.dryRun)} to remediate (nothing was changed)`,
      });
    }
    if (v.mode === 'merge' && v.reports.length === 0) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.reports],
        message: "mode 'merge' needs 'reports': globs of the report files to merge, e.g. reports/**/*.json",
      });
    }
    if (v.mode === 'reap') reapIssues(v, ctx);
    if (
      v.mode !== 'inventory' &&
      v.mode !== 'merge' &&
      v.mode !== 'reap' &&
      !(v.mode === 'scan' && v['scan-scope'] !== 'environment') &&
      v.namespaces.length === 0 &&
      v.selector.requirements.length === 0 &&
      v.releases.length === 0
    ) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.namespaces],
        message: `${byFace(`mode '${v.mode}'`, `kube-sweep ${v.mode}`)} needs a scope and none was given: set ${inputRef(Inputs.namespaces)} (names or globs), ${inputRef(Inputs.selector)} (a namespace label selector) or ${inputRef(Inputs.releases)} (namespace/name lines)`,
      });
    }
    if (v.cluster === 'kind' && v.kubeconfig.trim() !== '') {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kubeconfig],
        message: `${byFace('inputs ', '')}${inputSet(Inputs.cluster, 'kind')} and ${inputRef(Inputs.kubeconfig)} exclude each other: kind writes its own kubeconfig; drop one`,
      });
    }
    if (v.cluster !== 'kind' && (v['kind-config'] || v['kind-node-image'])) {
      ctx.addIssue({
        code: 'custom',
        path: [Inputs.kindConfig],
        message: `${byFace('inputs ', '')}${inputRef(Inputs.kindConfig)} and ${inputRef(Inputs.kindNodeImage)} only apply with ${inputSet(Inputs.cluster, 'kind')}`,
      });
    }
  });

/** The inputs as the schema parses them, keyed by input name. */
export type ParsedInputs = z.infer<typeof inputSchema>;
