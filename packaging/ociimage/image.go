package main

import (
	"fmt"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// The image's layout: where the binary and the data live, and who runs it.
// 65532 is the "nonroot" id of distroless images, an id no host user is
// likely to have.
const (
	binaryPath = "/usr/bin/herald"
	dataDir    = "/data"
	userID     = 65532
	httpPort   = "8080/tcp"
	caPath     = "/etc/ssl/certs/ca-certificates.crt"
)

// platformVariant is the OCI platform variant of an arch Herald ships, and
// whether it ships it.
func platformVariant(arch string) (variant string, ok bool) {
	switch arch {
	case "amd64":
		return "", true
	case "arm64":
		return "v8", true
	}
	return "", false
}

// imageSpec is what every platform's image holds besides its binary.
type imageSpec struct {
	version  string
	revision string
	source   string
	created  time.Time
	caBundle []byte
}

// platformImage is one arch's image.
type platformImage struct {
	arch  string
	image v1.Image
}

// buildImage makes one linux image of two layers: the files every version
// shares (users, CA bundle, /tmp, /data), which a registry then stores
// once, and the binary.
func buildImage(spec imageSpec, arch string, binary []byte) (v1.Image, error) {
	variant, ok := platformVariant(arch)
	if !ok {
		return nil, fmt.Errorf("arch %q: want amd64 or arm64", arch)
	}
	base, err := tarLayer(spec.created, []layerEntry{
		dir("etc/", 0o755, 0),
		file("etc/passwd", 0o644, []byte(fmt.Sprintf("root:x:0:0:root:/root:/sbin/nologin\nherald:x:%d:%d:herald:%s:/sbin/nologin\n", userID, userID, dataDir))),
		file("etc/group", 0o644, []byte(fmt.Sprintf("root:x:0:\nherald:x:%d:\n", userID))),
		dir("etc/ssl/", 0o755, 0),
		dir("etc/ssl/certs/", 0o755, 0),
		file(caPath[1:], 0o644, spec.caBundle),
		// Herald spools uploads and backups through os.TempDir.
		dir("tmp/", 0o1777, 0),
		// The data directory belongs to the user Herald runs as, 0700 like
		// the packaged /var/lib/herald's files; a new named volume copies
		// both from the image.
		dir(dataDir[1:]+"/", 0o700, userID),
	})
	if err != nil {
		return nil, fmt.Errorf("base layer: %w", err)
	}
	bin, err := tarLayer(spec.created, []layerEntry{
		dir("usr/", 0o755, 0),
		dir("usr/bin/", 0o755, 0),
		file(binaryPath[1:], 0o755, binary),
	})
	if err != nil {
		return nil, fmt.Errorf("binary layer: %w", err)
	}

	cfg := &v1.ConfigFile{
		Architecture: arch,
		Variant:      variant,
		OS:           "linux",
		Created:      v1.Time{Time: spec.created},
		RootFS:       v1.RootFS{Type: "layers"},
		Config: v1.Config{
			Entrypoint: []string{binaryPath},
			Cmd:        []string{"serve"},
			Env: []string{
				"PATH=/usr/bin",
				"HERALD_DATA_DIR=" + dataDir,
				"SSL_CERT_FILE=" + caPath,
			},
			User:         fmt.Sprintf("%d:%d", userID, userID),
			WorkingDir:   dataDir,
			ExposedPorts: map[string]struct{}{httpPort: {}},
			Volumes:      map[string]struct{}{dataDir: {}},
			Labels: map[string]string{
				"org.opencontainers.image.title":    "Herald",
				"org.opencontainers.image.version":  spec.version,
				"org.opencontainers.image.revision": spec.revision,
				"org.opencontainers.image.source":   spec.source,
				"org.opencontainers.image.created":  spec.created.Format(time.RFC3339),
				"org.opencontainers.image.licenses": "MIT",
			},
		},
	}
	img, err := mutate.ConfigFile(empty.Image, cfg)
	if err != nil {
		return nil, fmt.Errorf("config: %w", err)
	}
	created := v1.Time{Time: spec.created}
	img, err = mutate.Append(img,
		mutate.Addendum{Layer: base, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "herald ociimage: users, CA certificates, /tmp, /data"}},
		mutate.Addendum{Layer: bin, MediaType: types.OCILayer, History: v1.History{Created: created, CreatedBy: "herald ociimage: " + binaryPath + " " + spec.version}},
	)
	if err != nil {
		return nil, fmt.Errorf("append the layers: %w", err)
	}
	img = mutate.MediaType(img, types.OCIManifestSchema1)
	return mutate.ConfigMediaType(img, types.OCIConfigJSON), nil
}
