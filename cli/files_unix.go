//go:build unix

package cli

import "syscall"

// restrictUmask makes every file Herald creates readable by its owner
// only (0600, directories 0700) whatever the caller's umask: the database
// holds API keys and the backups hold the database.
func restrictUmask() { syscall.Umask(0o077) }
