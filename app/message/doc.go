// Package message builds the RFC 5322 / MIME bytes of one email, ready to be
// DKIM-signed and queued. It is pure: no I/O apart from crypto/rand for
// Message-IDs and MIME boundaries, and no package-level mutable state.
//
// # Structure
//
// Build always produces a multipart/alternative of a text/plain and a
// text/html part (the text derived from the HTML when not given). Inline
// attachments wrap that in multipart/related; regular attachments wrap the
// result in multipart/mixed:
//
//	mixed
//	├── related
//	│   ├── alternative (text/plain, text/html)
//	│   └── inline parts (Content-ID, Content-Disposition: inline)
//	└── attachments (Content-Disposition: attachment)
//
// Text parts are quoted-printable UTF-8, attachments base64 in 76-character
// lines, and every line ends in CRLF. Boundaries start with "=_", which can
// occur neither in quoted-printable (where "=" is always followed by a hex
// digit or a line break) nor in base64, so no part can contain one.
//
// # Custom headers
//
// ValidateHeaders refuses the fields Herald sets itself or that belong to
// the transport, because a second copy would change what the message says
// or who it appears to come from:
//
//   - From, Sender, To, Cc, Bcc, Reply-To (use the send request's reply
//     field), Subject, Date, Message-ID, MIME-Version;
//   - every Content-* field except Content-Language: they describe the MIME
//     structure Herald builds;
//   - DKIM-Signature, DomainKey-Signature, ARC-*, Authentication-Results,
//     Received-SPF: authentication results are the receiver's to add;
//   - Return-Path, Received, Delivered-To (some MTAs treat it as a mail
//     loop), Resent-*;
//   - List-Unsubscribe and List-Unsubscribe-Post (set from the Message
//     fields so that the one-click pair stays consistent);
//   - X-Herald-*, kept for Herald's own use.
//
// Names are 1..76 characters of RFC 5322 ftext (printable ASCII except
// colon), so that "Name: " fits on one 78-column line. Values are at most
// 998 characters without CR or LF; non-ASCII values are RFC 2047 encoded.
//
// # Submitted messages
//
// ParseSubmitted and Prepare handle the other way in: a message an SMTP
// client wrote (SMTP submission). It is sent as written, its fields and
// MIME structure byte for byte, except that Bcc, Resent-Bcc and X-Herald-*
// are removed, Message-ID and Date are added when missing, marketing mail
// (X-Herald-Marketing: true) gets Herald's List-Unsubscribe, and, with
// tracking on, each text/html part that is not an attachment is decoded,
// given to the caller's rewrite function and encoded again the same way
// (quoted-printable, base64 or as it was; as quoted-printable when the new
// links would make a 7bit or 8bit line longer than 998 characters).
package message
