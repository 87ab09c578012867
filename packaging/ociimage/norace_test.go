//go:build !race

package main

// raceBuild: this test binary was built without -race.
const raceBuild = false
