// Package cli is the herald command line and the wiring behind it, the
// only place that builds the object graph: the cobra commands (serve,
// migrate, project, user, workflow, backup, restore, version), the
// configuration (flags, environment, configuration file and the checks of
// every setting), serve's object graph and its shutdown order, the
// data-directory lock that keeps one server per data directory, the
// inbound SMTP listener's setup, and the version stamp (set at build time
// with -ldflags "-X github.com/heraldmail/herald/cli.version=...
// -X github.com/heraldmail/herald/cli.commit=...").
//
// main.go at the module root calls Main and nothing else.
package cli
