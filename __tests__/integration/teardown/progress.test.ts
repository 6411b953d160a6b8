/**
 * Progress you can watch (issue 34), on the real control plane: a teardown that waits on a
 * namespace held by a finalizer (no controller: a predicted hang, awaited with
 * `await-predicted-hangs: true`) writes a progress line at least every 10 s, naming what it
 * waits on, how many are left, the slowest object and its finalizers, the time spent and the
 * budget; the test releases the finalizer after the third line and the teardown ends clean.
 * The gaps are read from the lines' own elapsed seconds, with slack, not from timers.
 */
import type { ApiClient } from '../../../src/cluster/api-client.js';
import { waitFor } from '../../../src/util/wait.js';
import { runAction } from '../support/action.js';
import { adminApi, deleteIfPresent, uniqueName, waitGone } from '../support/cluster.js';
import {
  cleanupFinalizer,
  createNamespaceHeldByFinalizer,
  removeFinalizers,
} from '../rules/support/scenario.js';

let api: ApiClient;
beforeAll(async () => {
  api = await adminApi();
});
afterAll(async () => {
  await api.close();
});

test('a teardown waiting on a finalizer says where it is at least every 10 s, then ends clean', async () => {
  const ns = uniqueName('progress');
  const held = await createNamespaceHeldByFinalizer(api, ns);
  const progress: string[] = [];
  try {
    const running = runAction(
      {
        mode: 'teardown',
        namespaces: ns,
        'await-predicted-hangs': 'true',
        'stage-timeout': '3m',
        timeout: '4m',
      },
      {},
      undefined,
      undefined,
      (line) => {
        if (line.startsWith('waiting on namespaces:')) progress.push(line);
      },
    );
    // Three lines (about 30 s of waiting), the last naming the finalizer inside (the
    // namespace controller's condition is set by then), then the finalizer's owner "comes back".
    await waitFor(async () => ({ done: progress.length >= 3, value: undefined }), {
      timeoutMs: 120_000,
      description: 'three progress lines',
    });
    await removeFinalizers(api, held);
    const { report, failures } = await running;
    expect(failures).toEqual([]);
    expect(report.verdict).toBe('clean');

    expect(progress[2]).toMatch(
      new RegExp(
        `^waiting on namespaces: 1 of 1 left; slowest namespace ${ns}, finalizers \\[kubernetes\\], deleting since \\S+ \\(.*${cleanupFinalizer}.*\\); \\d+s of 180s$`,
      ),
    );
    // The lines' own elapsed seconds: the first within 15 s, each next one within 15 s of the last.
    const elapsed = progress.map((l) => Number(/; (\d+)s of 180s$/.exec(l)![1]));
    expect(elapsed[0]).toBeLessThanOrEqual(15);
    const gaps = elapsed.slice(1).map((e, i) => e - elapsed[i]!);
    expect(gaps.filter((g) => g > 15)).toEqual([]);
    // As many lines as the wait had 10 s periods, give or take one.
    const waitedSeconds = report.teardown!.namespaces[0]!.durationMs! / 1000;
    expect(progress.length).toBeGreaterThanOrEqual(Math.floor(waitedSeconds / 10) - 1);
  } finally {
    await removeFinalizers(api, held);
    await deleteIfPresent(api, `/api/v1/namespaces/${ns}`);
    await waitGone(api, `/api/v1/namespaces/${ns}`);
  }
}, 300_000);
