/**
 * Namespaces kube-sweep never deletes, whatever the inputs say: the ones the control plane
 * creates and depends on (kube-system, kube-public, kube-node-lease, default).
 */
export const protectedNamespaces: ReadonlySet<string> = new Set([
  'kube-system',
  'kube-public',
  'kube-node-lease',
  'default',
]);

export function isProtectedNamespace(name: string): boolean {
  return protectedNamespaces.has(name);
}
