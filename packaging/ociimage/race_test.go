//go:build race

package main

// raceBuild: this test binary was built with -race, so the Herald it
// builds is too, from the packages `go test -race` compiled already.
const raceBuild = true
