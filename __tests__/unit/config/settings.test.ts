import { InputDefaults, Inputs, type InputName } from '../../../src/config/inputs.js';
import { InputError, parseSettings } from '../../../src/config/settings.js';

const reader =
  (values: Partial<Record<InputName, string>>) =>
  (name: InputName): string =>
    values[name] ?? '';

test('unset inputs take their defaults', () => {
  const s = parseSettings(reader({}));
  expect(s).toEqual({
    mode: 'inventory',
    cluster: 'existing',
    kubeconfig: '',
    context: '',
    kind: { clusterName: 'kube-sweep', configPath: '', nodeImage: '', waitMs: 60_000, keep: false },
    requestTimeoutMs: 30_000,
    listConcurrency: 8,
    pageSize: 500,
    reportPath: '',
  });
  expect(Object.isFrozen(s)).toBe(true);
});

test('durations, numbers and booleans are parsed', () => {
  const s = parseSettings(
    reader({
      'request-timeout': '1m30s',
      'list-concurrency': '3',
      'page-size': '50',
      'kind-keep': 'TRUE',
      cluster: 'kind',
      'kind-wait': '5m',
    }),
  );
  expect(s.requestTimeoutMs).toBe(90_000);
  expect(s.listConcurrency).toBe(3);
  expect(s.pageSize).toBe(50);
  expect(s.kind.keep).toBe(true);
  expect(s.kind.waitMs).toBe(300_000);
});

test.each<[Partial<Record<InputName, string>>, InputName, RegExp]>([
  [{ mode: 'destroy' }, 'mode', /input 'mode' is 'destroy'; it takes one of: inventory/],
  [{ cluster: 'minikube' }, 'cluster', /input 'cluster' is 'minikube'; it takes one of: existing, kind/],
  [{ 'request-timeout': 'soon' }, 'request-timeout', /'request-timeout' is 'soon'.*90s, 5m/],
  [{ 'request-timeout': '-5s' }, 'request-timeout', /not a positive duration/],
  [{ 'kind-wait': '0s' }, 'kind-wait', /not a positive duration/],
  [{ 'list-concurrency': '0' }, 'list-concurrency', /from 1 to 64/],
  [{ 'list-concurrency': '2.5' }, 'list-concurrency', /whole number/],
  [{ 'page-size': '100000' }, 'page-size', /from 1 to 10000/],
  [{ 'kind-keep': 'yes' }, 'kind-keep', /takes true or false/],
  [{ cluster: 'kind', 'kind-cluster-name': 'Bad_Name' }, 'kind-cluster-name', /lower-case letters/],
  [{ cluster: 'kind', kubeconfig: '/tmp/x' }, 'kubeconfig', /exclude each other/],
  [{ 'kind-config': 'kind.yaml' }, 'kind-config', /only apply with 'cluster: kind'/],
])('bad input %j is rejected naming %s', (values, input, message) => {
  let caught: unknown;
  try {
    parseSettings(reader(values));
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InputError);
  expect((caught as InputError).input).toBe(input);
  expect((caught as InputError).message).toMatch(message);
});

test('every input has a default entry', () => {
  expect(Object.keys(InputDefaults).sort()).toEqual(Object.values(Inputs).sort());
});
