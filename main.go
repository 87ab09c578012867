// Command herald is a self-hosted email delivery and audience service in
// one binary. This file and its siblings in package main are the wiring:
// commands, configuration, signals. They are the only place that builds
// the object graph.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "herald:", err)
		os.Exit(1)
	}
}

func newRootCmd() *cobra.Command {
	c := &config{}
	root := &cobra.Command{
		Use:           "herald",
		Short:         "Herald: self-hosted email delivery and audience service",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			return applyEnv(cmd)
		},
	}
	globalFlags(root.PersistentFlags(), c)
	annotateEnv(root.PersistentFlags())
	root.AddCommand(newServeCmd(c), newMigrateCmd(c), newProjectCmd(c), newVersionCmd())
	root.AddCommand(newWorkflowCmd(c))
	return root
}
