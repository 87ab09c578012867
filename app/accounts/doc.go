// Package accounts owns who may do what: users and their sessions,
// passwords and the login lockout, projects and their API keys (with the
// key cache authentication reads), members and roles, the one
// authorization step every request passes (Authorize), billing caps, and
// a project's security standing (reputation, auto-disable).
//
// It is the lowest domain after event: every other one may import it. It
// reaches above itself through two hooks app wires: a Notifier (package
// notify) for Herald's own mail to users, and ProjectDataRemoved, called
// inside a write that deletes a project's contacts and emails so that
// caches of higher packages forget them.
package accounts
