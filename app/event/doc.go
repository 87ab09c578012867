// Package event owns the names of the events Herald records itself
// (email.*, contact.*), the reasons its subscription events carry, and
// the Service through which every event is written: it hands each one,
// inside the same write, to the subscribers app wires, so that a feature
// that reacts to events (the workflow engine's enrolment) subscribes once
// instead of every writer calling it.
//
// It imports only storage: it is the lowest of the domain packages.
package event
