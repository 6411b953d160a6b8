import { groupKeys } from '../../../src/inventory/etcd.js';

test('groupKeys: custom-resource prefixes (dotted group) with counts, samples and namespaces', () => {
  expect(
    groupKeys([
      '/registry/configmaps/ns1/cm1',
      '/registry/apiregistration.k8s.io/apiservices/v1.',
      '/registry/example.com/widgets/ns1/w1',
      '/registry/example.com/widgets/ns2/w2',
      '/registry/example.com/gadgets/g1',
      '/registry/example.com/widgets',
    ]),
  ).toEqual([
    { group: 'apiregistration.k8s.io', resource: 'apiservices', count: 1, samples: ['v1.'], namespaces: [] },
    { group: 'example.com', resource: 'gadgets', count: 1, samples: ['g1'], namespaces: [] },
    {
      group: 'example.com',
      resource: 'widgets',
      count: 2,
      samples: ['ns1/w1', 'ns2/w2'],
      namespaces: ['ns1', 'ns2'],
    },
  ]);
});
