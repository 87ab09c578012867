//go:build race

package web_test

// raceDetector is true under -race, where SQLite runs some twenty times
// slower; tests that gain nothing from it there run smaller.
const raceDetector = true
