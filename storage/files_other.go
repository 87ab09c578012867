//go:build !unix

package storage

import "os"

// PrepareFile makes sure a file Herald keeps in its data directory exists.
func PrepareFile(path string) (err error) {
	defer wrap(&err, "PrepareFile")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}
