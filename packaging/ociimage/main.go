// Command ociimage builds Herald's container image without a container
// daemon: an OCI image layout with a docker-load manifest beside it, in one
// tar, for every linux binary it is given. packaging/build.sh runs it:
//
//	go run ./packaging/ociimage -out dist/herald_1.2.3_oci.tar \
//	  -binary amd64=dist/herald_1.2.3_linux_amd64 -binary arm64=... \
//	  -version 1.2.3 -revision <commit>
//
// The image is FROM scratch: the static binary as /usr/bin/herald (the
// entrypoint, command `serve`), the CA bundle, a passwd entry for the user
// it runs as (65532, not root) and /data, its data directory and a volume.
// Every time in it is SOURCE_DATE_EPOCH, so the same inputs give the same
// bytes.
package main

import (
	"flag"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"
)

func main() {
	if err := run(os.Args[1:]); err != nil {
		fmt.Fprintln(os.Stderr, "ociimage:", err)
		os.Exit(1)
	}
}

func run(args []string) error {
	fs := flag.NewFlagSet("ociimage", flag.ContinueOnError)
	out := fs.String("out", "", "the image tar to write")
	binaries := archBinaries{}
	fs.Var(binaries, "binary", "ARCH=PATH of a static linux binary (repeat for each arch: amd64, arm64)")
	version := fs.String("version", "", "Herald's version (the image's tag and version label)")
	revision := fs.String("revision", "", "the commit it was built from (revision label)")
	source := fs.String("source", "https://github.com/heraldmail/herald", "the source repository (source label)")
	caBundle := fs.String("ca-bundle", "/etc/ssl/certs/ca-certificates.crt", "PEM bundle of the CA certificates Herald trusts (MTA-STS, webhooks, relays)")
	epoch := fs.String("source-date-epoch", os.Getenv("SOURCE_DATE_EPOCH"), "Unix time every timestamp in the image gets (default $SOURCE_DATE_EPOCH)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	switch {
	case *out == "":
		return fmt.Errorf("-out is required")
	case len(binaries) == 0:
		return fmt.Errorf("at least one -binary ARCH=PATH is required")
	case *version == "":
		return fmt.Errorf("-version is required")
	case *epoch == "":
		return fmt.Errorf("set SOURCE_DATE_EPOCH or -source-date-epoch (the commit's time) so the image is reproducible")
	}
	seconds, err := strconv.ParseInt(*epoch, 10, 64)
	if err != nil || seconds < 0 {
		return fmt.Errorf("source date epoch %q is not a Unix time", *epoch)
	}
	ca, err := os.ReadFile(*caBundle)
	if err != nil {
		return fmt.Errorf("read the CA bundle (install ca-certificates or pass -ca-bundle): %w", err)
	}
	spec := imageSpec{
		version:  *version,
		revision: *revision,
		source:   *source,
		created:  time.Unix(seconds, 0).UTC(),
		caBundle: ca,
	}
	var images []platformImage
	for _, arch := range binaries.archs() {
		binary, err := os.ReadFile(binaries[arch])
		if err != nil {
			return fmt.Errorf("read the %s binary: %w", arch, err)
		}
		img, err := buildImage(spec, arch, binary)
		if err != nil {
			return fmt.Errorf("build the %s image: %w", arch, err)
		}
		images = append(images, platformImage{arch: arch, image: img})
	}
	if err := writeArchive(*out, images, imageTag(*version)); err != nil {
		return fmt.Errorf("write %s: %w", *out, err)
	}
	return nil
}

// archBinaries is the repeatable -binary flag: arch to binary path.
type archBinaries map[string]string

func (b archBinaries) String() string { return fmt.Sprint(map[string]string(b)) }

func (b archBinaries) Set(v string) error {
	arch, path, ok := strings.Cut(v, "=")
	arch = strings.TrimPrefix(arch, "linux/")
	if !ok || path == "" {
		return fmt.Errorf("want ARCH=PATH, got %q", v)
	}
	if _, known := platformVariant(arch); !known {
		return fmt.Errorf("arch %q: want amd64 or arm64", arch)
	}
	b[arch] = path
	return nil
}

// archs lists the arches in a fixed order, so the index is the same from
// one run to the next.
func (b archBinaries) archs() []string {
	archs := make([]string, 0, len(b))
	for arch := range b {
		archs = append(archs, arch)
	}
	sort.Strings(archs)
	return archs
}

// imageTag turns a version into a valid image tag: a tag allows
// [A-Za-z0-9_.-], so the "+" of 0.0.0-dev+abc123 becomes "-".
func imageTag(version string) string {
	tag := []byte(version)
	for i, c := range tag {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-') {
			tag[i] = '-'
		}
	}
	if len(tag) > 128 {
		tag = tag[:128]
	}
	return string(tag)
}
