package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/storage"
)

// withApp opens the data directory for a one-shot command. SQLite's
// locking lets it run beside a server using the same directory.
func withApp(ctx context.Context, c *config, fn func(*app.App) error) error {
	return openApp(ctx, c, false, fn)
}

// withAppReading is withApp for a command that only reads: it refuses a
// missing data directory or database instead of creating one.
func withAppReading(ctx context.Context, c *config, fn func(*app.App) error) error {
	return openApp(ctx, c, true, fn)
}

func openApp(ctx context.Context, c *config, readOnly bool, fn func(*app.App) error) error {
	if readOnly {
		if err := requireDatabase(c.DataDir); err != nil {
			return err
		}
	}
	db, err := storage.Open(ctx, c.DataDir, storage.Options{Readers: 1})
	if err != nil {
		return err
	}
	defer db.Close()
	return fn(app.New(app.Options{DB: db, Log: slog.New(slog.DiscardHandler)}))
}

func newProjectCmd(c *config) *cobra.Command {
	cmd := &cobra.Command{Use: "project", Short: "Create and list projects and their API keys"}
	var name string
	var asJSON bool
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a project with a new key pair",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				p, err := a.Accounts.CreateProject(cmd.Context(), name)
				if err != nil {
					return err
				}
				return printProjects(cmd.OutOrStdout(), asJSON, p, true)
			})
		},
	}
	create.Flags().StringVar(&name, "name", "", "project name (required)")
	create.Flags().BoolVar(&asJSON, "json", false, "print the project as JSON")
	_ = create.MarkFlagRequired("name")

	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List projects with their keys",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withAppReading(cmd.Context(), c, func(a *app.App) error {
				ps, err := a.Accounts.ListProjects(cmd.Context())
				if err != nil {
					return err
				}
				if ps == nil {
					ps = []accounts.Project{}
				}
				return printProjects(cmd.OutOrStdout(), listJSON, ps, false)
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print the projects as a JSON array")
	cmd.AddCommand(create, list)
	cmd.AddCommand(projectAccountCmds(c)...)
	return cmd
}

func printProjects(w io.Writer, asJSON bool, v any, single bool) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	ps, ok := v.([]accounts.Project)
	if single {
		ps, ok = []accounts.Project{v.(accounts.Project)}, true
	}
	if !ok {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tNAME\tPUBLIC KEY\tSECRET KEY")
	for _, p := range ps {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.ID, p.Name, p.Public, p.Secret)
	}
	return tw.Flush()
}
