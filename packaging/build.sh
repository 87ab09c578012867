#!/usr/bin/env bash
# Build Herald's release artifacts from a clean checkout into dist/:
#   herald_<version>_<os>_<arch>       static, stripped binaries (linux and
#                                      darwin, amd64 and arm64)
#   herald_<version>_<arch>.deb        a Debian package per linux arch (nfpm)
#   herald-<version>.tar.gz            the source tarball (git archive)
#   herald.rb                          the Homebrew formula, with that
#                                      tarball's sha256
#   SHA256SUMS                         over every artifact above
#
# The version is the VERSION file's, else the tag vX.Y.Z on HEAD (else the
# latest such tag, else 0.0.0); HERALD_VERSION overrides both. The commit
# is HEAD's. Needs Go and git only: nfpm runs through `go run` at a pinned
# version, from the module proxy.
#
# Environment: HERALD_VERSION (override), DIST (default dist),
# TARGETS (default "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64").
set -euo pipefail
cd "$(dirname "$0")/.."

NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
DIST=${DIST:-dist}
TARGETS=${TARGETS:-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}

version=${HERALD_VERSION:-}
if [ -z "$version" ] && [ -f VERSION ]; then
  version=$(tr -d ' \n' < VERSION)
fi
if [ -z "$version" ]; then
  tag=$(git describe --tags --exact-match --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null ||
        git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null || echo v0.0.0)
  version=${tag#v}
fi
version=${version#v}
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  echo "build.sh: version \"$version\" is not X.Y.Z" >&2
  exit 2
fi
commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
echo "herald $version (commit $commit) -> $DIST/"

rm -rf "$DIST"
mkdir -p "$DIST"
artifacts=()

for target in $TARGETS; do
  goos=${target%/*} goarch=${target#*/}
  out="$DIST/herald_${version}_${goos}_${goarch}"
  CGO_ENABLED=0 GOOS=$goos GOARCH=$goarch go build -trimpath \
    -ldflags "-s -w -buildid= -X github.com/heraldmail/herald/cli.version=$version -X github.com/heraldmail/herald/cli.commit=$commit" -o "$out" .
  artifacts+=("$(basename "$out")")
  if [ "$goos" = linux ]; then
    stage=$(mktemp -d)
    sed -e "s|\${HERALD_BINARY}|$out|g" -e "s|\${VERSION}|$version|g" -e "s|\${ARCH}|$goarch|g" \
      packaging/nfpm.yaml > "$stage/nfpm.yaml"
    go run "$NFPM" package --config "$stage/nfpm.yaml" --packager deb --target "$DIST/herald_${version}_${goarch}.deb" >/dev/null
    rm -rf "$stage"
    artifacts+=("herald_${version}_${goarch}.deb")
  fi
done

# The source tarball the Homebrew formula builds from, and the formula with
# its real checksum.
tarball="herald-$version.tar.gz"
git archive --format=tar.gz --prefix="herald-$version/" -o "$DIST/$tarball" HEAD
sum=$(sha256sum "$DIST/$tarball" | cut -d' ' -f1)
sed -e "s|@VERSION@|$version|g" -e "s|@SHA256@|$sum|g" -e "s|@COMMIT@|$commit|g" packaging/herald.rb > "$DIST/herald.rb"
artifacts+=("$tarball" herald.rb)

(cd "$DIST" && sha256sum "${artifacts[@]}" > SHA256SUMS)
echo "built: ${artifacts[*]} SHA256SUMS"
