# Sourced by test/cluster/build.sh and test/kind/build.sh (needs versions.env sourced first).
#
# k8s_module <work dir> <cmd>...   writes a Go module in <work dir> that requires
#   k8s.io/kubernetes $KUBERNETES_VERSION and imports k8s.io/kubernetes/cmd/<cmd> for each <cmd>,
#   then runs `go mod tidy`. Every k8s.io staging module that k8s.io/kubernetes replaces with
#   ./staging is pinned to its published release of the same minor
#   ($KUBERNETES_STAGING_VERSION), so the build resolves from the module proxy.
#   Sets k8s_ldflags: the -X flags that stamp the version into the binaries.
# k8s_build <work dir> <out dir> <cmd>...   go builds each <cmd> into <out dir>/<cmd> (atomically).
k8s_module() {
  local work=$1 cmd upstream_mod minor pkg
  shift
  go mod download -json "k8s.io/kubernetes@$KUBERNETES_VERSION" >"$work/dl.json"
  upstream_mod=$(sed -n 's/.*"GoMod": "\(.*\)".*/\1/p' "$work/dl.json")
  {
    echo "module kube-sweep/build-kubernetes"
    echo
    sed -n 's/^go \(.*\)$/go \1/p' "$upstream_mod" | head -1
    echo
    echo "require k8s.io/kubernetes $KUBERNETES_VERSION"
    echo
    echo "replace ("
    grep -E '^\s+k8s\.io/[a-z0-9-]+ => \./staging/' "$upstream_mod" \
      | awk -v v="$KUBERNETES_STAGING_VERSION" '{print "\t" $1 " => " $1 " " v}'
    echo ")"
  } >"$work/go.mod"
  {
    printf '//go:build tools\n\npackage tools\n\nimport (\n'
    for cmd in "$@"; do printf '\t_ "k8s.io/kubernetes/cmd/%s"\n' "$cmd"; done
    printf ')\n'
  } >"$work/tools.go"
  minor=${KUBERNETES_VERSION#v1.}; minor=${minor%%.*}
  k8s_ldflags=""
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    k8s_ldflags+=" -X $pkg.gitVersion=$KUBERNETES_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    k8s_ldflags+=" -X $pkg.gitTreeState=clean -X $pkg.buildDate=1970-01-01T00:00:00Z"
  done
  (cd "$work" && go mod tidy >&2)
}

k8s_build() {
  local work=$1 out=$2 b
  shift 2
  mkdir -p "$out"
  for b in "$@"; do
    printf '[build]   go build %s\n' "$b" >&2
    (cd "$work" && go build -ldflags "$k8s_ldflags" -o "$out/$b.tmp" "k8s.io/kubernetes/cmd/$b" >&2)
    mv "$out/$b.tmp" "$out/$b"
  done
}
