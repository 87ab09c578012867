package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/app"
)

// projectAccountCmds are the project commands of the account side:
// members, key rotation, reset and delete. They work beside a running
// server: its key cache trusts a key for 2 seconds only.
func projectAccountCmds(c *config) []*cobra.Command {
	var project, email, role string
	var memberJSON bool
	addMember := &cobra.Command{
		Use:   "add-member",
		Short: "Give an existing user a role in a project",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				m, err := a.Accounts.AddMemberByEmail(cmd.Context(), project, email, role)
				if err != nil {
					return err
				}
				if memberJSON {
					return printProjects(cmd.OutOrStdout(), true, m, false)
				}
				_, err = fmt.Fprintf(cmd.OutOrStdout(), "%s is %s of %s\n", m.Email, m.Role, project)
				return err
			})
		},
	}
	addMember.Flags().StringVar(&project, "project", "", "project id (required)")
	addMember.Flags().StringVar(&email, "email", "", "the user's email (required)")
	addMember.Flags().StringVar(&role, "role", "MEMBER", "OWNER, ADMIN or MEMBER")
	addMember.Flags().BoolVar(&memberJSON, "json", false, "print the member as JSON")
	_ = addMember.MarkFlagRequired("project")
	_ = addMember.MarkFlagRequired("email")

	var regenJSON bool
	regenerate := &cobra.Command{
		Use:   "regenerate-keys ID",
		Short: "Replace both keys of a project; the old ones stop at once (within 2 s on a running server)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				p, err := a.Accounts.RegenerateKeys(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				return printProjects(cmd.OutOrStdout(), regenJSON, p, true)
			})
		},
	}
	regenerate.Flags().BoolVar(&regenJSON, "json", false, "print the project as JSON")

	var deleteYes bool
	del := &cobra.Command{
		Use:   "delete ID --yes",
		Short: "Delete a project and all its data; its keys stop at once",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !deleteYes {
				return errors.New("deleting a project destroys all its data: add --yes to confirm")
			}
			return withApp(cmd.Context(), c, func(a *app.App) error {
				if err := a.Accounts.DeleteProject(cmd.Context(), args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "deleted", args[0])
				return err
			})
		},
	}
	del.Flags().BoolVar(&deleteYes, "yes", false, "confirm the deletion")

	var resetYes bool
	reset := &cobra.Command{
		Use:   "reset ID --yes",
		Short: "Delete a project's data but its keys, settings, members, domains, limits and uploads",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if !resetYes {
				return errors.New("resetting a project destroys its data: add --yes to confirm")
			}
			return withApp(cmd.Context(), c, func(a *app.App) error {
				if _, err := a.Accounts.ResetProjectData(cmd.Context(), args[0]); err != nil {
					return err
				}
				_, err := fmt.Fprintln(cmd.OutOrStdout(), "reset", args[0])
				return err
			})
		},
	}
	reset.Flags().BoolVar(&resetYes, "yes", false, "confirm the reset")
	return []*cobra.Command{addMember, regenerate, del, reset}
}
