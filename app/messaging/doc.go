// Package messaging sends mail: /v1/send, templates, composing a message
// (render, MIME, tracking, DKIM), queueing it with its delivery job, the
// delivery job itself with its retries and the relay's health, bounces and
// complaints (DSNs, ARF reports, Amazon SES through SNS), and uploads.
//
// It imports event, accounts, audience, senders and tracking. Campaigns,
// above it, learn of their emails' final states through the
// CampaignEmailSettled hook.
package messaging
