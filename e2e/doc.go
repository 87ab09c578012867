// Package e2e holds the end-to-end tests: they build the herald binary
// from the module root, run its commands on a temporary data directory and
// drive a running `herald serve` over HTTP and SMTP, as an operator and an
// integrator would. It has no code of its own beyond its tests.
package e2e
