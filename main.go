// Command herald is a self-hosted email delivery and audience service in
// one binary. The commands, configuration and wiring live in package cli;
// this file only runs it.
package main

import (
	"os"

	"github.com/heraldmail/herald/cli"
)

func main() { os.Exit(cli.Main()) }
