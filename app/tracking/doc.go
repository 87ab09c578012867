// Package tracking owns Herald's links: the signed tokens in them, tracked
// HTML (links rewritten, the open pixel), recording opens and clicks (at
// most once a minute per email and link, within a project's budget), the
// contact's subscription and preference pages behind unsubscribeUrl,
// subscribeUrl and manageUrl, and the VERP tokens of return paths.
//
// It imports event, accounts and audience.
package tracking
