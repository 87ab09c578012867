package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

// Main runs the herald command line on os.Args and returns the process's
// exit code: 0, or the code exitCode gives the error, which it prints.
func Main() int {
	restrictUmask()
	if err := newRootCmd().Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "herald:", err)
		return exitCode(err)
	}
	return 0
}

func newRootCmd() *cobra.Command { return newRootCmdWith(lookupEnv, defaultConfigFile) }

// newRootCmdWith takes the environment and the default configuration
// file, which tests replace.
func newRootCmdWith(env func(string) (string, bool), configFile string) *cobra.Command {
	c := &config{}
	root := &cobra.Command{
		Use:           "herald",
		Short:         "Herald: self-hosted email delivery and audience service",
		SilenceUsage:  true,
		SilenceErrors: true,
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			s, err := loadSettings(env, c.ConfigFile, configFile)
			if err != nil && !(cmd.Name() == "version" && errors.Is(err, os.ErrPermission)) {
				return err // version needs no settings from a file it may not read
			}
			if err := checkSettings(s); err != nil {
				return err
			}
			return applySettings(cmd, s)
		},
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return configError{err.Error()} })
	globalFlags(root.PersistentFlags(), c)
	annotateEnv(root.PersistentFlags())
	root.AddCommand(newServeCmd(c), newMigrateCmd(c), newProjectCmd(c), newVersionCmd())
	root.AddCommand(newUserCmd(c))
	root.AddCommand(newBackupCmd(c), newRestoreCmd(c))
	root.AddCommand(newWorkflowCmd(c))
	return root
}
