// Package notify sends Herald's own mail to its users (verification,
// password reset, project notices): from HERALD_SYSTEM_FROM, signed with
// the key of a project's verified domain of that address, through the
// same delivery path as /v1/send, owned by a hidden system project so
// that it is no contact, event or usage of anyone's project.
//
// It implements accounts.Notifier, and imports senders and messaging.
package notify
