#!/usr/bin/env bash
# Measurement (b) of bench/inventory.ts: the leftover scan of the seed script, as written
# there (kubectl on PATH, KUBECONFIG set by the caller). Two lines are added for the
# benchmark, both marked "bench:": a counter of the lines read per resource, printed to stderr,
# so the number of objects this approach saw can be compared; they cost one arithmetic
# expansion per line and one echo per resource.
current_namespaces=($(kubectl get ns --no-headers | awk '{print $1}'))
api_resources=($(kubectl api-resources --verbs=list --namespaced -o name))
for api_resource in ${api_resources[@]}; do
    seen=0 # bench:
    while IFS= read -r line; do
        seen=$((seen + 1)) # bench:
        resource_namespace=$(echo $line | awk '{print $1}')
        resource_name=$(echo $line | awk '{print $2}')
        if [[ ! " ${current_namespaces[@]} " =~ " $resource_namespace " ]]; then
            echo "api-resource: ${api_resource} - namespace: ${resource_namespace} - resource name: ${resource_name}"
        fi
    done < <(kubectl get $api_resource -A --ignore-not-found --no-headers -o custom-columns="NAMESPACE:.metadata.namespace,NAME:.metadata.name")
    echo "bench: seen ${api_resource} ${seen}" >&2 # bench:
done
