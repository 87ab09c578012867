package cli

import (
	"database/sql"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/storage"
)

func newMigrateCmd(c *config) *cobra.Command {
	cmd := &cobra.Command{Use: "migrate", Short: "Show or apply database migrations (serve applies them too)"}
	cmd.AddCommand(&cobra.Command{
		Use:   "status",
		Short: "List migrations and whether each is applied",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := requireDataDir(c.DataDir); err != nil {
				return err
			}
			// Without a database yet (a fresh install), every migration is
			// pending: show that from an empty one in memory, creating nothing.
			open := func() (*sql.DB, error) { return storage.OpenWithoutMigrating(c.DataDir) }
			if _, err := os.Stat(filepath.Join(c.DataDir, storage.FileName)); errors.Is(err, os.ErrNotExist) {
				open = func() (*sql.DB, error) { return sql.Open("sqlite", ":memory:") }
			}
			db, err := open()
			if err != nil {
				return err
			}
			defer db.Close()
			p, err := storage.NewMigrator(db)
			if err != nil {
				return err
			}
			statuses, err := p.Status(cmd.Context())
			if err != nil {
				return err
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "VERSION\tSTATE\tAPPLIED AT\tFILE")
			for _, s := range statuses {
				at := "-"
				if !s.AppliedAt.IsZero() {
					at = s.AppliedAt.UTC().Format(time.RFC3339)
				}
				fmt.Fprintf(tw, "%d\t%s\t%s\t%s\n", s.Source.Version, s.State, at, s.Source.Path)
			}
			return tw.Flush()
		},
	}, &cobra.Command{
		Use:   "up",
		Short: "Apply every pending migration",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			db, err := storage.OpenWithoutMigrating(c.DataDir)
			if err != nil {
				return err
			}
			defer db.Close()
			n, err := storage.Migrate(cmd.Context(), db)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "applied %d migration(s)\n", n)
			return nil
		},
	})
	return cmd
}
