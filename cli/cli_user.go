package cli

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/verify"
)

// passwordFlags are --password and --password-stdin, one of which is
// required.
type passwordFlags struct {
	password string
	stdin    bool
}

func (pf *passwordFlags) add(cmd *cobra.Command) {
	cmd.Flags().StringVar(&pf.password, "password", "", "the password (visible to other users of the machine: prefer --password-stdin)")
	cmd.Flags().BoolVar(&pf.stdin, "password-stdin", false, "read the password from the first line of standard input")
	cmd.MarkFlagsMutuallyExclusive("password", "password-stdin")
	cmd.MarkFlagsOneRequired("password", "password-stdin")
}

// read returns the password; from stdin, one line without its line end.
func (pf *passwordFlags) read(in io.Reader) (string, error) {
	if !pf.stdin {
		return pf.password, nil
	}
	line, err := bufio.NewReader(in).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	line = strings.TrimSuffix(line, "\n")
	line = strings.TrimSuffix(line, "\r")
	if line == "" && errors.Is(err, io.EOF) {
		return "", errors.New("no password on standard input")
	}
	return line, nil
}

func printUser(w io.Writer, asJSON bool, u accounts.User) error {
	if asJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(u)
	}
	_, err := fmt.Fprintf(w, "%s\t%s\n", u.ID, u.Email)
	return err
}

func newUserCmd(c *config) *cobra.Command {
	cmd := &cobra.Command{Use: "user", Short: "Create, list and delete dashboard users; reset their passwords"}

	var email string
	var asJSON bool
	var pw passwordFlags
	create := &cobra.Command{
		Use:   "create",
		Short: "Create a user with a verified email (also when signups are disabled)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := pw.read(cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withApp(cmd.Context(), c, func(a *app.App) error {
				u, err := a.Accounts.CreateUser(cmd.Context(), email, p)
				if err != nil {
					return err
				}
				return printUser(cmd.OutOrStdout(), asJSON, u)
			})
		},
	}
	create.Flags().StringVar(&email, "email", "", "the user's email (required)")
	create.Flags().BoolVar(&asJSON, "json", false, "print the user as JSON (as GET /users/@me)")
	_ = create.MarkFlagRequired("email")
	pw.add(create)

	var resetEmail string
	var resetJSON bool
	var resetPw passwordFlags
	reset := &cobra.Command{
		Use:   "reset-password",
		Short: "Set a user's password and end all their sessions",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			p, err := resetPw.read(cmd.InOrStdin())
			if err != nil {
				return err
			}
			return withApp(cmd.Context(), c, func(a *app.App) error {
				u, err := a.Accounts.ResetUserPassword(cmd.Context(), resetEmail, p)
				if err != nil {
					return err
				}
				return printUser(cmd.OutOrStdout(), resetJSON, u)
			})
		},
	}
	reset.Flags().StringVar(&resetEmail, "email", "", "the user's email (required)")
	reset.Flags().BoolVar(&resetJSON, "json", false, "print the user as JSON")
	_ = reset.MarkFlagRequired("email")
	resetPw.add(reset)

	var listJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List users, oldest first",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				us, err := a.Accounts.ListUsers(cmd.Context())
				if err != nil {
					return err
				}
				if listJSON {
					enc := json.NewEncoder(cmd.OutOrStdout())
					enc.SetIndent("", "  ")
					return enc.Encode(us)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tEMAIL\tVERIFIED\tCREATED")
				for _, u := range us {
					fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", u.ID, u.Email, u.EmailVerified, u.CreatedAt.Format("2006-01-02 15:04"))
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().BoolVar(&listJSON, "json", false, "print the users as a JSON array")

	var delEmail string
	del := &cobra.Command{
		Use:   "delete",
		Short: "Delete a user, their sessions and memberships (their projects stay)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				if err := a.Accounts.DeleteUser(cmd.Context(), delEmail); err != nil {
					return err
				}
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "deleted", verify.NormalizeEmail(delEmail))
				return err
			})
		},
	}
	del.Flags().StringVar(&delEmail, "email", "", "the user's email (required)")
	_ = del.MarkFlagRequired("email")

	cmd.AddCommand(create, reset, list, del)
	return cmd
}
