package event

// The names of the events Herald records itself, and the reasons its
// subscription events carry. Event names are stored in rows and sent to
// integrators: never rename one.

// Email events (DECISIONS.md "Events").
const (
	EventSent      = "email.sent"     // handed to delivery
	EventDelivery  = "email.delivery" // accepted by the recipient's server
	EventBounce    = "email.bounce"
	EventComplaint = "email.complaint"
	EventOpen      = "email.open"
	EventClick     = "email.click"
	// EventFailed is emitted for an email that failed for good before any
	// server accepted or refused it: its message could not be made (a
	// render error on the contact's data), or its delivery gave up.
	EventFailed = "email.failed"
)

// Subscription events.
const (
	EventSubscribed   = "contact.subscribed"
	EventUnsubscribed = "contact.unsubscribed"
)

// Reasons carried by contact.subscribed / contact.unsubscribed events.
const (
	ReasonAPI       = "api"
	ReasonBulk      = "bulk"
	ReasonBounce    = "bounce"
	ReasonComplaint = "complaint"
	ReasonWorkflow  = "workflow"
	// ReasonUnsubscribeLink is the reason of changes made on the pages
	// behind unsubscribeUrl, subscribeUrl and manageUrl.
	ReasonUnsubscribeLink = "unsubscribe_link"
)

// MaxEventName bounds event names.
const MaxEventName = 255
