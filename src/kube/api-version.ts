/**
 * The API group of an apiVersion: `apps/v1` → `apps`, `v1` → '' (the core group). Pure; here,
 * low in the pipeline, so that Helm manifests, the plan, the teardown and the rules share it.
 */
export function groupOf(apiVersion: string): string {
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}
