package main

import (
	"archive/tar"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// imageName is the repository the image is tagged in on `docker load`.
const imageName = "herald"

// dockerManifest is one entry of the manifest.json `docker load` reads.
type dockerManifest struct {
	Config   string
	RepoTags []string
	Layers   []string
}

// writeArchive writes one tar that is both an OCI image layout (index.json
// names an image index of every platform: `podman load`, `skopeo copy
// oci-archive:`, Docker with the containerd store) and a `docker load`
// archive (manifest.json names the amd64 image, else the first, tagged
// herald:<tag> and herald:latest), the layout Docker 25 itself saves. The
// blobs are shared, so the tar holds each layer once.
func writeArchive(out string, images []platformImage, tag string) error {
	if len(images) == 0 {
		return fmt.Errorf("no image to write")
	}
	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	for _, pi := range images {
		variant, _ := platformVariant(pi.arch)
		idx = mutate.AppendManifests(idx, mutate.IndexAddendum{
			Add: pi.image,
			Descriptor: v1.Descriptor{
				Platform: &v1.Platform{OS: "linux", Architecture: pi.arch, Variant: variant},
			},
		})
	}

	dir, err := os.MkdirTemp("", "herald-oci-")
	if err != nil {
		return fmt.Errorf("layout directory: %w", err)
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{
		"org.opencontainers.image.ref.name": tag,
		"io.containerd.image.name":          "docker.io/library/" + imageName + ":" + tag,
	})); err != nil {
		return fmt.Errorf("OCI layout: %w", err)
	}

	loadable := images[0]
	for _, pi := range images {
		if pi.arch == "amd64" {
			loadable = pi
		}
	}
	manifest, err := dockerManifestOf(loadable.image, []string{imageName + ":" + tag, imageName + ":latest"})
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "manifest.json"), manifest, 0o644); err != nil {
		return fmt.Errorf("manifest.json: %w", err)
	}
	created, err := loadable.image.ConfigFile()
	if err != nil {
		return fmt.Errorf("read the config back: %w", err)
	}
	return tarDirectory(dir, out, created.Created.Time)
}

// dockerManifestOf is manifest.json for one image whose blobs are in the
// layout's blobs/sha256/.
func dockerManifestOf(img v1.Image, tags []string) ([]byte, error) {
	config, err := img.ConfigName()
	if err != nil {
		return nil, fmt.Errorf("config digest: %w", err)
	}
	layers, err := img.Layers()
	if err != nil {
		return nil, fmt.Errorf("layers: %w", err)
	}
	m := dockerManifest{Config: blobPath(config), RepoTags: tags}
	for _, l := range layers {
		digest, err := l.Digest()
		if err != nil {
			return nil, fmt.Errorf("layer digest: %w", err)
		}
		m.Layers = append(m.Layers, blobPath(digest))
	}
	b, err := json.Marshal([]dockerManifest{m})
	if err != nil {
		return nil, fmt.Errorf("manifest.json: %w", err)
	}
	return b, nil
}

func blobPath(h v1.Hash) string { return "blobs/" + h.Algorithm + "/" + h.Hex }

// tarDirectory packs dir into the tar file out, in lexical order, with
// fixed times, owners and modes: the same layout gives the same bytes.
func tarDirectory(dir, out string, modTime time.Time) error {
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(f)
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dir {
			return err
		}
		rel, err := filepath.Rel(dir, path)
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), ModTime: modTime, Mode: 0o644, Typeflag: tar.TypeReg}
		if d.IsDir() {
			h.Name += "/"
			h.Mode, h.Typeflag = 0o755, tar.TypeDir
			return tw.WriteHeader(h)
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h.Size = info.Size()
		if err := tw.WriteHeader(h); err != nil {
			return err
		}
		src, err := os.Open(path)
		if err != nil {
			return err
		}
		defer src.Close()
		_, err = io.Copy(tw, src)
		return err
	})
	if walkErr != nil {
		f.Close()
		return fmt.Errorf("pack the layout: %w", walkErr)
	}
	if err := tw.Close(); err != nil {
		f.Close()
		return fmt.Errorf("pack the layout: %w", err)
	}
	return f.Close()
}
