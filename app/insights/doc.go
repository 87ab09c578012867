// Package insights answers what happened and what is coming: the
// activity feed and its stats, upcoming sends, and the analytics series
// and breakdowns. It only reads.
//
// It is the highest domain package: it imports workflow for the steps
// waiting on a timer.
package insights
