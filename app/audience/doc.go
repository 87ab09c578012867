// Package audience owns contacts and what is known of them: the contact
// data rules (reserved keys, limits), fields, custom events and /v1/track,
// address verification (/v1/verify), conditions and their compilation to
// audiences, segments and their memberships (with segment.* events),
// imports and bulk changes.
//
// It imports event and accounts. It tells caches above it of deleted
// contacts through the ContactsRemoved hook.
package audience
