#!/usr/bin/env bash
# Builds the demo environment on the cluster of $KUBECONFIG, with $HELM and $KUBECTL:
#   scripts/demo-env.sh <clean|broken> <prefix>
# Releases, from the local charts in test/charts (namespaces <prefix>-operator, <prefix>-app,
# <prefix>-extras):
#   <prefix>-operator/operator  CRD widgets.<prefix>.kube-sweep.test, a validating webhook, a Deployment
#   <prefix>-app/app            two Widgets (custom resources of the operator's CRD)
#   <prefix>-app/web            a plain Deployment + Service + ConfigMap
#   <prefix>-extras/keeper      a ConfigMap with helm.sh/resource-policy: keep
#   <prefix>-extras/hooks       (broken only) post-install hook objects: a ConfigMap and a
#                               ClusterRole, which Helm never deletes
# `broken` then breaks it the way people do (shared/cases S02/S06 and S10):
#   - the Widgets carry the operator's finalizer, and the operator release is uninstalled
#     before the app: its CRD goes Terminating and the Widgets keep their finalizer forever;
#   - namespace <prefix>-scratch, holding a ConfigMap with a finalizer, is force-finalized
#     through /finalize: the namespace is gone, the ConfigMap stays stored in it.
# `clean` installs the same releases (no finalizer, no hooks release) and breaks nothing.
# With OPERATOR_IMAGE set (a cluster with a kubelet, e.g. kind, where that image is loaded: see
# test/operator/image.sh), the operator release runs the real operator (test/operator/operator.mjs)
# as its Deployment, its webhook answers from the pod (failurePolicy Fail) and the install waits
# for the pod to be ready; the Widgets then carry the finalizer in `clean` too (the live operator
# removes it when they are deleted), and `broken` first scales the operator to zero and waits for
# its pod to be gone, so that no controller is left to remove the finalizer.
# With WEB_IMAGE set, the web Deployment runs that image with imagePullPolicy Never (on kind: the
# node's preloaded pause image), so nothing is ever pulled.
# Used by scripts/demo.sh and by the end-to-end tests (__tests__/e2e/demo.test.ts).
set -euo pipefail
cd "$(dirname "$0")/.."
variant=${1:?usage: demo-env.sh <clean|broken> <prefix>}
prefix=${2:?usage: demo-env.sh <clean|broken> <prefix>}
[[ $variant == clean || $variant == broken ]] || { echo "demo-env.sh: variant must be clean or broken, not '$variant'" >&2; exit 2; }
: "${KUBECONFIG:?set KUBECONFIG}" "${HELM:?set HELM to a helm binary}" "${KUBECTL:?set KUBECTL to a kubectl binary}"
group=$prefix.kube-sweep.test
say() { printf '[demo-env] %s\n' "$*"; }
helm_() { "$HELM" --kubeconfig "$KUBECONFIG" "$@"; }
kubectl_() { "$KUBECTL" --kubeconfig "$KUBECONFIG" "$@"; }

finalizer=false
[[ $variant == broken || -n ${OPERATOR_IMAGE:-} ]] && finalizer=true
operator_args=()
[[ -n ${OPERATOR_IMAGE:-} ]] && operator_args=(--set image="$OPERATOR_IMAGE" --wait --timeout 180s)

helm_ install operator test/charts/operator -n "$prefix-operator" --create-namespace --set group="$group" \
  "${operator_args[@]}" >/dev/null
say "installed release $prefix-operator/operator (CRD widgets.$group, webhook, Deployment${OPERATOR_IMAGE:+ running $OPERATOR_IMAGE})"
kubectl_ wait --for condition=established --timeout 60s "crd/widgets.$group" >/dev/null
if [[ -n ${OPERATOR_IMAGE:-} ]]; then
  # The webhook (failurePolicy Fail) answers only once the Service's endpoints and kube-proxy's
  # rules follow the pod's readiness. A failed `helm install app` would leave a failed release
  # behind, so wait with a server-side dry run of a Widget (admission runs, nothing is stored).
  probe="{\"apiVersion\":\"$group/v1\",\"kind\":\"Widget\",\"metadata\":{\"name\":\"probe\",\"namespace\":\"$prefix-operator\"},\"spec\":{\"size\":1}}"
  for i in $(seq 1 240); do
    probe_err=$(kubectl_ create --dry-run=server -o name -f - <<<"$probe" 2>&1 >/dev/null) && break
    [[ $i == 240 ]] && { echo "demo-env.sh: the operator's webhook does not answer: $probe_err" >&2; exit 1; }
    sleep 0.5
  done
  say "the operator's webhook answers"
fi
# The API server needs a moment to serve a just-established CRD.
attempts=20
for i in $(seq 1 $attempts); do
  if app_err=$(helm_ install app test/charts/app -n "$prefix-app" --create-namespace --set group="$group" \
    --set finalizer=$finalizer 2>&1 >/dev/null); then
    say "installed release $prefix-app/app (Widgets w1, w2; finalizer on them: $finalizer)"
    break
  fi
  [[ $i == "$attempts" ]] && { echo "demo-env.sh: installing the app release failed: $app_err" >&2; exit 1; }
  sleep 0.5
done
web_args=()
[[ -n ${WEB_IMAGE:-} ]] && web_args=(--set image="$WEB_IMAGE" --set imagePullPolicy=Never)
helm_ install web test/charts/sample -n "$prefix-app" "${web_args[@]}" >/dev/null
say "installed release $prefix-app/web"
helm_ install keeper test/charts/keepy -n "$prefix-extras" --create-namespace >/dev/null
say "installed release $prefix-extras/keeper (a ConfigMap with resource-policy: keep)"
if [[ $variant == broken ]]; then
  helm_ install hooks test/charts/hookcr -n "$prefix-extras" >/dev/null
  say "installed release $prefix-extras/hooks (post-install hook objects, which Helm never deletes)"
fi

[[ $variant == clean ]] && exit 0

# 1. The operator goes first (the mistake of seed 000): its CRD is deleted while Widgets with
#    its finalizer exist, and nothing will ever remove that finalizer.
if [[ -n ${OPERATOR_IMAGE:-} ]]; then
  kubectl_ -n "$prefix-operator" scale deployment widget-operator --replicas 0 >/dev/null
  kubectl_ -n "$prefix-operator" wait --for delete pod -l app=widget-operator --timeout 120s >/dev/null
  say "broke: the operator's pod is gone (scaled to zero)"
fi
helm_ uninstall operator -n "$prefix-operator" --wait=false >/dev/null 2>&1 || true
say "broke: uninstalled $prefix-operator/operator before the Widgets that need it"

# 2. A namespace force-finalized through /finalize (what people paste from forums).
scratch=$prefix-scratch
kubectl_ create namespace "$scratch" >/dev/null
kubectl_ apply -f - >/dev/null <<EOF
apiVersion: v1
kind: ConfigMap
metadata:
  name: settings
  namespace: $scratch
  finalizers: [example.com/cleanup]
data:
  a: b
EOF
kubectl_ delete namespace "$scratch" --wait=false >/dev/null
for _ in $(seq 1 60); do
  if kubectl_ get namespace "$scratch" -o jsonpath='{.status.conditions[?(@.type=="NamespaceFinalizersRemaining")].status}' 2>/dev/null | grep -q True; then
    break
  fi
  sleep 0.5
done
kubectl_ get namespace "$scratch" -o json |
  node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>{const n=JSON.parse(s);n.spec.finalizers=[];process.stdout.write(JSON.stringify(n))})' |
  kubectl_ replace --raw "/api/v1/namespaces/$scratch/finalize" -f - >/dev/null
say "broke: force-finalized namespace $scratch through /finalize; its ConfigMap 'settings' stays stored"
