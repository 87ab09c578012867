//go:build !race

package web_test

// raceDetector is true under -race; see race_on_test.go.
const raceDetector = false
