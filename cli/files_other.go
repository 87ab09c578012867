//go:build !unix

package cli

func restrictUmask() {}
