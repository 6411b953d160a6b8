/** Jest in ESM mode with ts-jest, one worker per local control plane (below). Four projects: unit (no cluster), integration (the local
 *  control plane from test/cluster; `npm run cluster:up` first), kind (a Docker engine from
 *  test/kind/docker.sh and the node image from test/kind/build.sh; see docs/kind.md) and act (the
 *  workflows run by nektos/act from test/act/build.sh: the examples on the local control plane,
 *  e2e.yml on real kind; see docs/development.md). */
const tsJest = [
  'ts-jest',
  { useESM: true, tsconfig: 'tsconfig.check.json', diagnostics: { ignoreCodes: ['TS151001'] } },
];
// One jest worker per local control plane (test/cluster/workers.sh up N, then
// KUBE_SWEEP_TEST_CLUSTERS=N): worker k's tests use control plane k (test/jest/worker-cluster.mjs),
// so test files run in parallel and none sees another's objects. One control plane: one worker.
const workerCluster = '<rootDir>/test/jest/worker-cluster.mjs';
const clusters = Math.max(1, Number(process.env.KUBE_SWEEP_TEST_CLUSTERS ?? '1') || 1);
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
  // The local control plane's data (etcd writes *.snap files) is not part of the test tree.
  modulePathIgnorePatterns: ['<rootDir>/\\.cluster'],
};
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/__tests__/unit/**/*.test.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/__tests__/integration/**/*.test.ts', '<rootDir>/__tests__/e2e/**/*.test.ts'],
      globalSetup: '<rootDir>/__tests__/integration/global-setup.ts',
      setupFiles: [workerCluster],
    },
    {
      ...common,
      displayName: 'kind',
      testMatch: ['<rootDir>/__tests__/kind/**/*.test.ts'],
      setupFiles: [workerCluster],
    },
    {
      ...common,
      displayName: 'act',
      testMatch: ['<rootDir>/__tests__/act/**/*.test.ts'],
      globalSetup: '<rootDir>/__tests__/integration/global-setup.ts',
      setupFiles: [workerCluster],
    },
  ],
  maxWorkers: clusters,
  testTimeout: 120000,
};
