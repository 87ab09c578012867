package cli

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/heraldmail/herald/storage"
)

// requireDatabase is the check of commands that only read: a data
// directory that does not exist, or holds no database, is most likely a
// typo, and creating an empty one there would hide it.
func requireDatabase(dir string) error {
	if err := requireDataDir(dir); err != nil {
		return err
	}
	db := filepath.Join(dir, storage.FileName)
	if _, err := os.Stat(db); errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s holds no Herald database (%s is missing): check --data-dir / HERALD_DATA_DIR", dir, db)
	} else if err != nil {
		return err
	}
	return nil
}

// requireDataDir refuses a data directory that does not exist.
func requireDataDir(dir string) error {
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return fmt.Errorf("data directory %s does not exist: check --data-dir / HERALD_DATA_DIR (a packaged install uses %s)", dir, packagedDataDir)
	case errors.Is(err, os.ErrPermission):
		return fmt.Errorf("data directory %s: permission denied: run the command as its owner (sudo -u herald herald ...) or as root", dir)
	case err != nil:
		return err
	case !fi.IsDir():
		return fmt.Errorf("data directory %s is not a directory", dir)
	}
	return nil
}
