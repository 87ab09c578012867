//go:build unix

package storage

import (
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// PrepareFile makes sure a file Herald keeps in its data directory exists,
// is readable by its owner only (0600), and belongs to the directory's
// owner: root running `herald project create` on a packaged install must
// not leave a database the herald user can no longer write. A file the
// caller cannot write is an error naming the file, its owner and the fix.
func PrepareFile(path string) (err error) {
	defer wrap(&err, "PrepareFile")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, os.ErrPermission) {
		return notWritable(path)
	}
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	defer f.Close()
	if err := f.Chmod(0o600); err != nil {
		return fmt.Errorf("chmod %s: %w", path, err)
	}
	if os.Geteuid() != 0 {
		return nil
	}
	dir, err := os.Stat(filepath.Dir(path))
	if err != nil {
		return err
	}
	st, ok := dir.Sys().(*syscall.Stat_t)
	if !ok || st.Uid == 0 {
		return nil
	}
	if err := f.Chown(int(st.Uid), int(st.Gid)); err != nil {
		return fmt.Errorf("chown %s to the data directory's owner (uid %d): %w", path, st.Uid, err)
	}
	return nil
}

// notWritable explains a file the current user may not write.
func notWritable(path string) error {
	owner := "another user"
	if fi, err := os.Stat(path); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			owner = userName(st.Uid)
		}
	} else if fi, err := os.Stat(filepath.Dir(path)); err == nil {
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			owner = userName(st.Uid)
		}
		path = filepath.Dir(path)
	}
	return fmt.Errorf("%s is not writable by %s: it belongs to %s; run the command as that user (sudo -u %s herald ...) or as root",
		path, userName(uint32(os.Geteuid())), owner, owner)
}

func userName(uid uint32) string {
	if u, err := user.LookupId(strconv.Itoa(int(uid))); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(int(uid))
}
