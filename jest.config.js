/** Jest in ESM mode with ts-jest. Four projects: unit (no cluster), integration (the local
 *  control plane from test/cluster; `npm run cluster:up` first), kind (a Docker engine from
 *  test/kind/docker.sh and the node image from test/kind/build.sh; see docs/kind.md) and act (the
 *  workflows run by nektos/act from test/act/build.sh: the examples on the local control plane,
 *  e2e.yml on real kind; see docs/development.md). */
const tsJest = [
  'ts-jest',
  { useESM: true, tsconfig: 'tsconfig.check.json', diagnostics: { ignoreCodes: ['TS151001'] } },
];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
  // The local control plane's data (etcd writes *.snap files) is not part of the test tree.
  modulePathIgnorePatterns: ['<rootDir>/.cluster/', '<rootDir>/.cluster-b/'],
};
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/__tests__/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/__tests__/integration/**/*.test.ts', '<rootDir>/__tests__/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/__tests__/integration/global-setup.ts',
    },
    { ...common, displayName: 'kind', testMatch: ['<rootDir>/__tests__/kind/**/*.test.ts'] },
    {
      ...common,
      displayName: 'act',
      testMatch: ['<rootDir>/__tests__/act/**/*.test.ts'],
      globalSetup: '<rootDir>/__tests__/integration/global-setup.ts',
    },
  ],
  testTimeout: 120000,
};
