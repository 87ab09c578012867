package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// layerEntry is one file or directory of a layer.
type layerEntry struct {
	name  string // relative, directories end in "/"
	mode  int64  // permission bits, with the sticky bit where wanted
	owner int    // uid and gid
	body  []byte
	isDir bool
}

func dir(name string, mode int64, owner int) layerEntry {
	return layerEntry{name: name, mode: mode, owner: owner, isDir: true}
}

// file is a file owned by root: only /data belongs to Herald's user.
func file(name string, mode int64, body []byte) layerEntry {
	return layerEntry{name: name, mode: mode, body: body}
}

// tarLayer packs the entries, in the order given (parents first), into a
// gzip-compressed OCI layer. Every time in it is the given one and no
// entry names a host user, so the layer's digest depends on its contents
// only.
func tarLayer(modTime time.Time, entries []layerEntry) (v1.Layer, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, e := range entries {
		h := &tar.Header{
			Name:    e.name,
			Mode:    e.mode,
			Uid:     e.owner,
			Gid:     e.owner,
			ModTime: modTime,
		}
		if e.isDir {
			h.Typeflag = tar.TypeDir
		} else {
			h.Typeflag = tar.TypeReg
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			return nil, fmt.Errorf("tar header of %s: %w", e.name, err)
		}
		if _, err := tw.Write(e.body); err != nil {
			return nil, fmt.Errorf("tar body of %s: %w", e.name, err)
		}
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close the layer tar: %w", err)
	}
	layerTar := buf.Bytes()
	return tarball.LayerFromOpener(
		func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(layerTar)), nil },
		tarball.WithMediaType(types.OCILayer),
		tarball.WithCompressionLevel(gzip.BestCompression),
		tarball.WithCompressedCaching,
	)
}
