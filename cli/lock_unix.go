//go:build unix

package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/heraldmail/herald/storage"
)

// lockDataDir makes sure one `herald serve` at a time uses a data directory.
// The job queue relies on it: at start, jobs still marked active belong to
// a server that is gone, and are taken back at once instead of waiting for
// their leases to run out. The lock goes with the process, however it ends.
func lockDataDir(dir string) (release func(), err error) {
	if err := os.MkdirAll(dir, 0o750); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, "serve.lock")
	if err := storage.PrepareFile(path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0o600)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("another herald serve is using the data directory %s (it holds %s): stop it first", dir, path)
		}
		return nil, err
	}
	return func() { f.Close() }, nil
}
