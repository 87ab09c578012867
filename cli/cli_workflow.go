package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/heraldmail/herald/app"
	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/paging"
	"github.com/heraldmail/herald/app/workflow"
)

// newWorkflowCmd is `herald workflow list|show|executions`: what an
// operator needs to see of the workflow engine without the dashboard.
func newWorkflowCmd(c *config) *cobra.Command {
	cmd := &cobra.Command{Use: "workflow", Short: "Inspect workflows and their executions"}
	var project string
	var asJSON bool
	list := &cobra.Command{
		Use:   "list",
		Short: "List workflows (of every project, or of --project)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				ws, err := a.Workflows.OperatorWorkflows(cmd.Context(), project)
				if err != nil || asJSON {
					return printJSON(cmd.OutOrStdout(), ws, err)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tPROJECT\tNAME\tTRIGGER\tENABLED")
				for _, w := range ws {
					trigger := w.TriggerType
					if w.EventName != "" {
						trigger += " " + w.EventName
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%v\n", w.ID, w.ProjectID, w.Name, trigger, w.Enabled)
				}
				return tw.Flush()
			})
		},
	}
	list.Flags().StringVar(&project, "project", "", "only this project's workflows")
	list.Flags().BoolVar(&asJSON, "json", false, "print JSON")

	var showJSON bool
	show := &cobra.Command{
		Use:   "show <workflow-id>",
		Short: "Show a workflow with its steps and transitions",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				w, err := a.Workflows.OperatorWorkflow(cmd.Context(), args[0])
				if err != nil || showJSON {
					return printJSON(cmd.OutOrStdout(), w, err)
				}
				out := cmd.OutOrStdout()
				fmt.Fprintf(out, "%s  %s\nproject %s, trigger %s %s, enabled %v, re-entry %v\n\n", w.ID, w.Name, w.ProjectID,
					w.TriggerType, string(w.TriggerConfig), w.Enabled, w.AllowReentry)
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "STEP\tTYPE\tNAME\tCONFIG")
				for _, s := range w.Steps {
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", s.ID, s.Type, s.Name, string(s.Config))
				}
				fmt.Fprintln(tw, "\nFROM\tTO\tBRANCH/OUTCOME\t")
				for _, t := range w.Transitions {
					tag := ""
					if t.Branch != nil {
						tag = *t.Branch
					}
					if t.WaitOutcome != nil {
						tag = *t.WaitOutcome
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t\n", t.FromStepID, t.ToStepID, tag)
				}
				return tw.Flush()
			})
		},
	}
	show.Flags().BoolVar(&showJSON, "json", false, "print JSON")

	var status string
	var limit int
	var execJSON bool
	executions := &cobra.Command{
		Use:   "executions <workflow-id>",
		Short: "List a workflow's executions, newest first",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withApp(cmd.Context(), c, func(a *app.App) error {
				p, err := a.Workflows.OperatorExecutions(cmd.Context(), args[0],
					workflow.ExecutionQuery{Limit: paging.ClampLimit(limit, true), Status: status})
				if err != nil || execJSON {
					return printJSON(cmd.OutOrStdout(), p, err)
				}
				tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "EXECUTION\tCONTACT\tSTATUS\tSTEP\tSTARTED\tREASON")
				for _, x := range p.Data {
					step, reason := "", ""
					if x.CurrentStep != nil {
						step = x.CurrentStep.Type + " " + x.CurrentStep.Name
					}
					if x.ExitReason != nil {
						reason = *x.ExitReason
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", x.ID, x.Contact.Email, x.Status, step,
						x.StartedAt.Format("2006-01-02 15:04:05"), reason)
				}
				fmt.Fprintf(tw, "(%d in all)\n", p.Total)
				return tw.Flush()
			})
		},
	}
	executions.Flags().StringVar(&status, "status", "", "only RUNNING, WAITING, COMPLETED, EXITED, FAILED or CANCELLED")
	executions.Flags().IntVar(&limit, "limit", 20, "how many (1..100)")
	executions.Flags().BoolVar(&execJSON, "json", false, "print JSON")
	cmd.AddCommand(list, show, executions)
	return cmd
}

func printJSON(w io.Writer, v any, err error) error {
	if err != nil {
		if ae, ok := apierr.AsError(err); ok {
			return fmt.Errorf("%s", ae.Message)
		}
		return err
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
