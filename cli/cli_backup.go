package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/storage"
)

func newBackupCmd(c *config) *cobra.Command {
	return &cobra.Command{
		Use:   "backup FILE",
		Short: "Write a consistent copy of the database to FILE (0600), also while serve runs",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := requireDatabase(c.DataDir); err != nil {
				return err
			}
			if err := storage.Backup(cmd.Context(), c.DataDir, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "backed up %s to %s\n", filepath.Join(c.DataDir, storage.FileName), args[0])
			return nil
		},
	}
}

func newRestoreCmd(c *config) *cobra.Command {
	return &cobra.Command{
		Use:   "restore FILE",
		Short: "Replace the database with a backup; refused while a server uses the data directory",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			version, err := storage.CheckBackup(cmd.Context(), args[0])
			if err != nil {
				return fmt.Errorf("restore: %w", err)
			}
			if err := os.MkdirAll(c.DataDir, 0o750); err != nil {
				return fmt.Errorf("restore: create data directory: %w", err)
			}
			release, err := lockDataDir(c.DataDir)
			if err != nil {
				return fmt.Errorf("restore refused: %w (systemctl stop herald on a packaged install)", err)
			}
			defer release()
			if err := storage.Restore(c.DataDir, args[0]); err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "restored %s into %s (migration %d); the next start applies any newer migrations\n",
				args[0], filepath.Join(c.DataDir, storage.FileName), version)
			return nil
		},
	}
}
