#!/usr/bin/env bash
# Build Herald's release artifacts from a clean checkout into dist/:
#   herald_<version>_<os>_<arch>       static, stripped binaries (linux and
#                                      darwin, amd64 and arm64)
#   herald_<version>_<arch>.deb        a Debian package per linux arch (nfpm)
#   herald_<version>_oci.tar           the container image of the linux
#                                      binaries (packaging/ociimage, no
#                                      daemon): an OCI layout and a
#                                      `docker load` archive in one tar
#   herald-<version>.tar.gz            the source tarball (git archive)
#   herald.rb                          the Homebrew formula, with that
#                                      tarball's URL and sha256
#   homebrew-tap/                      a git repository with
#                                      Formula/herald.rb committed: a tap
#   SHA256SUMS                         over every file above
#
# The version is HERALD_VERSION's, else the VERSION file's, else the tag
# vX.Y.Z on HEAD. Without any of them this is a development build, and it
# says so: 0.0.0-dev+<commit>, or X.Y.(Z+1)-dev+<commit> after the latest
# tag vX.Y.Z, so it sorts after that release (the .deb's Version is
# 0.0.0~dev+<commit>: nfpm turns "-" into "~" for dpkg). The commit is HEAD's.
# Every timestamp is SOURCE_DATE_EPOCH, by default HEAD's commit time. Needs
# Go and git only: nfpm and the image builder run through `go run` at
# pinned versions, from the module proxy.
#
# Environment: HERALD_VERSION (override), DIST (default dist),
# TARGETS (default "linux/amd64 linux/arm64 darwin/amd64 darwin/arm64";
# empty: the source tarball, the formula and the tap only),
# HERALD_RELEASE_URL (where the source tarball will be downloaded from,
# default https://github.com/heraldmail/herald/releases/download/v<version>;
# file://$PWD/dist to install from this build), CA_BUNDLE (the image's CA
# certificates, default /etc/ssl/certs/ca-certificates.crt).
set -euo pipefail
cd "$(dirname "$0")/.."

NFPM=github.com/goreleaser/nfpm/v2/cmd/nfpm@v2.45.2
DIST=${DIST:-dist}
TARGETS=${TARGETS-linux/amd64 linux/arm64 darwin/amd64 darwin/arm64}
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct HEAD 2>/dev/null || echo 0)}

commit=$(git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)
version=${HERALD_VERSION:-}
if [ -z "$version" ] && [ -f VERSION ]; then
  version=$(tr -d ' \n' < VERSION)
fi
if [ -z "$version" ]; then
  if tag=$(git describe --tags --exact-match --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null); then
    version=${tag#v}
  else
    last=$(git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null || true)
    base=0.0.0
    if [[ $last =~ ^v([0-9]+)\.([0-9]+)\.([0-9]+)$ ]]; then
      base="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.$((BASH_REMATCH[3] + 1))"
    fi
    version="$base-dev+$commit"
    echo "build.sh: no VERSION file and no tag vX.Y.Z on HEAD${last:+ (the latest tag is $last)}:" \
      "a development build, version $version (the .deb's ${base}~dev+$commit)." \
      "Tag the commit vX.Y.Z or write VERSION for a release." >&2
  fi
fi
version=${version#v}
# Semantic versioning: X.Y.Z, with an optional -prerelease and +build.
if ! [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$ ]]; then
  echo "build.sh: version \"$version\" is not X.Y.Z (or X.Y.Z-pre+build)" >&2
  exit 2
fi
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

# The container image, from the linux binaries above.
image_binaries=()
for target in $TARGETS; do
  if [ "${target%/*}" = linux ]; then
    image_binaries+=(-binary "${target#*/}=$DIST/herald_${version}_linux_${target#*/}")
  fi
done
if [ ${#image_binaries[@]} -gt 0 ]; then
  image="herald_${version}_oci.tar"
  go run ./packaging/ociimage -out "$DIST/$image" "${image_binaries[@]}" -version "$version" \
    -revision "$(git rev-parse HEAD 2>/dev/null || echo "$commit")" ${CA_BUNDLE:+-ca-bundle "$CA_BUNDLE"}
  artifacts+=("$image")
fi

# The source tarball the Homebrew formula builds from, and the formula with
# its URL and real checksum. A release's version is in the URL, where brew
# reads it; a development version is spelled out.
tarball="herald-$version.tar.gz"
git archive --format=tar.gz --prefix="herald-$version/" -o "$DIST/$tarball" HEAD
sum=$(sha256sum "$DIST/$tarball" | cut -d' ' -f1)
url="${HERALD_RELEASE_URL:-https://github.com/heraldmail/herald/releases/download/v$version}/$tarball"
formula=(-e "s|@URL@|$url|g" -e "s|@VERSION@|$version|g" -e "s|@SHA256@|$sum|g" -e "s|@COMMIT@|$commit|g")
if [[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]; then
  formula+=(-e '/^  version "/d')
fi
sed "${formula[@]}" packaging/herald.rb > "$DIST/herald.rb"
artifacts+=("$tarball" herald.rb)

# The tap: current Homebrew installs formulae from taps only, and a tap is
# a git repository (`brew tap herald/herald dist/homebrew-tap`). Its commit
# is dated like the rest, so it is the same from one build to the next.
tap="$DIST/homebrew-tap"
mkdir -p "$tap/Formula"
cp "$DIST/herald.rb" "$tap/Formula/herald.rb"
(
  unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE
  cd "$tap"
  git -c init.defaultBranch=main init -q
  git add Formula/herald.rb
  GIT_AUTHOR_DATE="@$SOURCE_DATE_EPOCH +0000" GIT_COMMITTER_DATE="@$SOURCE_DATE_EPOCH +0000" \
    git -c user.name="Herald release" -c user.email="release@heraldmail.dev" -c commit.gpgsign=false \
    commit -q --no-verify -m "herald $version"
)

(cd "$DIST" && sha256sum "${artifacts[@]}" > SHA256SUMS)
echo "built: ${artifacts[*]} homebrew-tap/ SHA256SUMS"
