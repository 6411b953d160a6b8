/**
 * Text from the cluster that carries markdown or HTML stays text: in the job summary and in the
 * PR comment (posted to the local recording server) nothing it contains becomes an element, a
 * link, emphasis or a table cell. The text is put in the cluster for real: annotation values
 * are free text, and the Helm rules quote the release named by `meta.helm.sh/release-name`.
 * Checked by rendering the markdown with `marked` (a CommonMark/GFM renderer, as GitHub's is).
 */
import { marked } from 'marked';
import { runnerEnv, startGitHubRecorder } from './support/github-recorder.js';
import { runAction } from './support/action.js';
import {
  adminApiForSuite,
  createNamespace,
  deleteIfPresent,
  kubectl,
  uniqueName,
} from './support/cluster.js';

const suiteApi = adminApiForSuite();
const hostile = '<img src=x onerror=alert(1)> **bold** | cell [click](https://evil.example) `tick`';

test('markdown and HTML in cluster text are rendered inert in the summary and the PR comment', async () => {
  const api = suiteApi();
  const ns = uniqueName('inert');
  await createNamespace(api, ns);
  try {
    await kubectl(
      ['apply', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: {
          name: 'left',
          namespace: ns,
          labels: { 'app.kubernetes.io/managed-by': 'Helm' },
          annotations: {
            'meta.helm.sh/release-name': hostile,
            'meta.helm.sh/release-namespace': `${ns}-gone`,
          },
        },
        data: { k: 'v' },
      }),
    );
    const server = await startGitHubRecorder();
    let run;
    try {
      run = await runAction(
        {
          mode: 'scan',
          'scan-scope': 'environment',
          namespaces: ns,
          'pr-comment': 'true',
          'github-token': 'ghs_x',
        },
        runnerEnv(server.url, { pullRequest: { number: 3, headSha: 'sha' } }),
      );
    } finally {
      await server.close();
    }
    const leftover = run.report.findings!.find((f) => f.code === 'HelmLeftover');
    expect(JSON.stringify(leftover)).toContain('<img src=x onerror=alert(1)>'); // the report keeps raw text
    const comment = server.requests.find((r) => r.method === 'POST' && r.path.endsWith('/issues/3/comments'));
    expect(comment).toBeDefined();
    const commentBody = (comment!.body as { body: string }).body;
    for (const [where, markdown] of [
      ['summary', run.summary],
      ['PR comment', commentBody],
    ] as const) {
      expect([where, markdown.includes('onerror=alert')]).toEqual([where, true]);
      const html = await marked.parse(markdown);
      expect([where, /<img|<a |<strong>bold|href="https:\/\/evil/.test(html)]).toEqual([where, false]);
      // The text itself is visible, escaped.
      expect([where, html.includes('&lt;img src=x onerror=alert(1)&gt;')]).toEqual([where, true]);
    }
  } finally {
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
  }
});
