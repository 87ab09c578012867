// Package sandbox is Herald's mailbox for trying it without DNS (herald
// serve --sandbox, HERALD_SANDBOX=true): nothing leaves the machine. Its
// Service is the messaging.Mailer app gives the delivery job in place of
// smtpout, so that a message goes through the whole send path (the queue,
// the delivery job, email.sent and email.delivery) and is then kept here,
// as the recipient's server would have received it: a Return-Path and a
// Received field above the signed bytes, and the result of checking its
// DKIM signature against the keys Herald holds (senders.PublishedDKIM, in
// place of the DNS a receiver would ask).
//
// It owns the captured messages (storage's sandbox_messages, bounded to
// the newest Keep messages and MaxBytes in all) and their views: the list
// and one message (GET /sandbox/messages[/{id}]) and the HTML shown in the
// dashboard's sandboxed frame. It stands above senders and accounts in
// the domain order.
package sandbox
