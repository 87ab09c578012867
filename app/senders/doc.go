// Package senders owns sender domains: the DNS records a domain must
// publish, their periodic checks, its DKIM key and the signers made from
// it, whether a From address may be used, and which bounce domains the
// inbound listener serves.
//
// It imports accounts.
package senders
