package main

import (
	"archive/tar"
	"bytes"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// TestImage builds the image of a real Herald binary for this machine's
// arch, as packaging/build.sh does, reads it back through both of its
// doors (the OCI layout and docker load's manifest.json), checks what a
// container runtime would read from the config and the layers, and runs
// the binary taken out of the layer.
func TestImage(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the image's linux binary runs only on linux")
	}
	if _, ok := platformVariant(runtime.GOARCH); !ok {
		t.Skipf("Herald ships no image for %s", runtime.GOARCH)
	}
	dir := t.TempDir()
	binary := filepath.Join(dir, "herald")
	// Built with the flags of the `go test` running this (plain, or
	// -race), whose compiled packages it then shares: the release's flags
	// (static, stripped, trimmed) would compile the whole tree once more on
	// a busy machine for the same check. It runs on this machine, so it
	// need not be static.
	args := []string{"build", "-o", binary}
	if raceBuild {
		args = append(args, "-race")
	}
	build := exec.CommandContext(t.Context(), "go", append(args, ".")...)
	build.Dir = filepath.Join("..", "..")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	ca := []byte("-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n")
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca, 0o644); err != nil {
		t.Fatal(err)
	}
	const epoch = 1700000000
	buildArchive := func(out string) {
		t.Helper()
		err := run([]string{"-out", out, "-binary", runtime.GOARCH + "=" + binary,
			"-version", "1.2.3-dev+abc123", "-revision", "abc123", "-ca-bundle", caFile,
			"-source-date-epoch", strconv.Itoa(epoch)})
		if err != nil {
			t.Fatal(err)
		}
	}
	archive := filepath.Join(dir, "herald_oci.tar")
	buildArchive(archive)

	img := imageFromLayout(t, archive, "1.2.3-dev-abc123")
	cfg, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	c := cfg.Config
	if cfg.OS != "linux" || cfg.Architecture != runtime.GOARCH {
		t.Errorf("platform %s/%s", cfg.OS, cfg.Architecture)
	}
	if !slices.Equal(c.Entrypoint, []string{"/usr/bin/herald"}) || !slices.Equal(c.Cmd, []string{"serve"}) {
		t.Errorf("entrypoint %q, cmd %q", c.Entrypoint, c.Cmd)
	}
	uid, _, _ := strings.Cut(c.User, ":")
	if n, err := strconv.Atoi(uid); err != nil || n == 0 {
		t.Errorf("user %q: want a numeric id other than root's", c.User)
	}
	if !slices.Contains(c.Env, "HERALD_DATA_DIR=/data") {
		t.Errorf("env %q lacks HERALD_DATA_DIR=/data", c.Env)
	}
	if _, ok := c.Volumes["/data"]; !ok {
		t.Errorf("volumes %v lack /data", c.Volumes)
	}
	if _, ok := c.ExposedPorts["8080/tcp"]; !ok {
		t.Errorf("exposed ports %v lack 8080/tcp", c.ExposedPorts)
	}
	for k, want := range map[string]string{
		"org.opencontainers.image.version":  "1.2.3-dev+abc123",
		"org.opencontainers.image.revision": "abc123",
		"org.opencontainers.image.source":   "https://github.com/heraldmail/herald",
	} {
		if got := c.Labels[k]; got != want {
			t.Errorf("label %s = %q, want %q", k, got, want)
		}
	}
	if !cfg.Created.Time.Equal(time.Unix(epoch, 0)) {
		t.Errorf("created %v, want the source date epoch", cfg.Created.Time)
	}
	if mt, _ := img.MediaType(); mt != types.OCIManifestSchema1 {
		t.Errorf("manifest media type %s", mt)
	}

	files := imageFiles(t, img)
	want := func(path string, mode int64, typ byte, owner int) *tar.Header {
		t.Helper()
		h := files[path]
		if h == nil {
			t.Fatalf("the image has no %s", path)
		}
		if h.Mode != mode || h.Typeflag != typ || h.Uid != owner || h.Gid != owner {
			t.Errorf("%s: mode %o type %c owner %d:%d, want mode %o type %c owner %d", path, h.Mode, h.Typeflag, h.Uid, h.Gid, mode, typ, owner)
		}
		return h
	}
	want("usr/bin/herald", 0o755, tar.TypeReg, 0)
	want("data", 0o700, tar.TypeDir, atoi(t, uid))
	want("tmp", 0o1777, tar.TypeDir, 0)
	want("etc/ssl/certs/ca-certificates.crt", 0o644, tar.TypeReg, 0)
	if got := fileBody(t, img, "etc/ssl/certs/ca-certificates.crt"); !bytes.Equal(got, ca) {
		t.Errorf("CA bundle %q, want the one given", got)
	}
	if passwd := fileBody(t, img, "etc/passwd"); !bytes.Contains(passwd, []byte(":"+uid+":"+uid+":")) {
		t.Errorf("passwd has no entry for user %s:\n%s", uid, passwd)
	}

	// The binary taken out of the layer runs.
	extracted := filepath.Join(dir, "extracted-herald")
	if err := os.WriteFile(extracted, fileBody(t, img, "usr/bin/herald"), 0o755); err != nil {
		t.Fatal(err)
	}
	out, err := exec.CommandContext(t.Context(), extracted, "version").CombinedOutput()
	if err != nil || !strings.HasPrefix(string(out), "herald ") {
		t.Fatalf("herald version from the image: %v\n%s", err, out)
	}

	// docker load reads manifest.json: the same config, tagged.
	for _, tag := range []string{"herald:1.2.3-dev-abc123", "herald:latest"} {
		ref, err := name.NewTag(tag)
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := tarball.ImageFromPath(archive, &ref)
		if err != nil {
			t.Fatalf("manifest.json, %s: %v", tag, err)
		}
		got, _ := loaded.ConfigName()
		want, _ := img.ConfigName()
		if got != want {
			t.Errorf("manifest.json's %s has config %s, the layout's %s", tag, got, want)
		}
		if layers, err := loaded.Layers(); err != nil || len(layers) != 2 {
			t.Errorf("manifest.json's %s: %d layers, %v", tag, len(layers), err)
		}
	}

	// The same inputs give the same bytes.
	again := filepath.Join(dir, "again.tar")
	buildArchive(again)
	if a, b := mustRead(t, archive), mustRead(t, again); !bytes.Equal(a, b) {
		t.Error("two builds of the same image differ")
	}
}

// imageFromLayout unpacks the archive's OCI layout and returns this arch's
// image from the index its index.json names by tag.
func imageFromLayout(t *testing.T, archive, tag string) v1.Image {
	t.Helper()
	dir := t.TempDir()
	untar(t, archive, dir)
	root, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatalf("OCI layout: %v", err)
	}
	top, err := root.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(top.Manifests) != 1 {
		t.Fatalf("index.json names %d manifests, want 1 index", len(top.Manifests))
	}
	d := top.Manifests[0]
	if d.MediaType != types.OCIImageIndex || d.Annotations["org.opencontainers.image.ref.name"] != tag {
		t.Fatalf("index.json names %s %v, want an image index tagged %s", d.MediaType, d.Annotations, tag)
	}
	idx, err := root.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	im, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range im.Manifests {
		if m.Platform != nil && m.Platform.OS == "linux" && m.Platform.Architecture == runtime.GOARCH {
			img, err := idx.Image(m.Digest)
			if err != nil {
				t.Fatal(err)
			}
			return img
		}
	}
	t.Fatalf("the index has no linux/%s image: %+v", runtime.GOARCH, im.Manifests)
	return nil
}

// imageFiles lists the headers of the image's flattened file system, by
// clean path (no trailing "/" on directories).
func imageFiles(t *testing.T, img v1.Image) map[string]*tar.Header {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
	}
}

// fileBody is one file's contents in the image.
func fileBody(t *testing.T, img v1.Image, path string) []byte {
	t.Helper()
	rc := mutate.Extract(img)
	defer rc.Close()
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if err != nil {
			t.Fatalf("%s not in the image: %v", path, err)
		}
		if h.Name == path {
			b, err := io.ReadAll(tr)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
	}
}

func untar(t *testing.T, archive, dir string) {
	t.Helper()
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(dir, filepath.FromSlash(h.Name))
		if !strings.HasPrefix(path, dir+string(filepath.Separator)) {
			t.Fatalf("%s leaves the archive", h.Name)
		}
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(path, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	i, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return i
}
