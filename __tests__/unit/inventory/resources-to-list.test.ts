import { listedGroupOf, resourcesToList } from '../../../src/inventory/collect.js';
import type { DiscoveryResult } from '../../../src/inventory/discovery.js';
import type { ServedResource } from '../../../src/inventory/types.js';

const served = (group: string, resource: string, verbs = ['list', 'watch']): ServedResource => ({
  group,
  version: 'v1',
  resource,
  kind: 'Event',
  namespaced: true,
  verbs,
});
const discovery = (resources: ServedResource[]): DiscoveryResult => ({
  resources,
  preferredVersions: new Map([
    ['', 'v1'],
    ['events.k8s.io', 'v1'],
  ]),
  failed: [],
  aggregated: true,
});
const listed = (d: DiscoveryResult) => resourcesToList(d).map((r) => `${r.group}/${r.resource}`);

test('events.k8s.io Events are not listed when the core Events are', () => {
  expect(listed(discovery([served('events.k8s.io', 'events'), served('', 'events')]))).toEqual(['/events']);
});

test('events.k8s.io Events are listed when the core Events cannot be', () => {
  expect(listed(discovery([served('events.k8s.io', 'events'), served('', 'events', ['create'])]))).toEqual([
    'events.k8s.io/events',
  ]);
  expect(listed(discovery([served('events.k8s.io', 'events')]))).toEqual(['events.k8s.io/events']);
});

test('ComponentStatuses are never listed: their list probes components and reads nothing stored', () => {
  expect(listed(discovery([served('', 'componentstatuses'), served('', 'configmaps')]))).toEqual([
    '/configmaps',
  ]);
});

test('an events.k8s.io Event is looked up where the snapshot lists it: under the core group', () => {
  expect(listedGroupOf('events.k8s.io', 'Event')).toBe('');
  expect(listedGroupOf('', 'Event')).toBe('');
  expect(listedGroupOf('apps', 'Deployment')).toBe('apps');
  expect(listedGroupOf('events.k8s.io', 'Other')).toBe('events.k8s.io');
});
