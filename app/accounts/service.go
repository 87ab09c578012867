package accounts

import (
	"context"
	"log/slog"
	"time"

	"github.com/heraldmail/herald/app/password"
	"github.com/heraldmail/herald/app/readcache"
	"github.com/heraldmail/herald/clock"
	"github.com/heraldmail/herald/storage"
)

// Settings configure the account side: users, sessions, platform mail.
// The zero value is a working default.
type Settings struct {
	SessionTTL time.Duration // default 168h
	// Signups is who may sign up (HERALD_SIGNUPS): SignupsFirst (""
	// too), SignupsOpen or SignupsInvite.
	Signups string
	// DisableSignups (HERALD_DISABLE_SIGNUPS) closes sign-up entirely,
	// invitations included.
	DisableSignups bool
	// SystemFrom is the From address of platform mail (verification,
	// password reset, reputation notices); "" sends none.
	SystemFrom  string
	AutoDisable bool // disable a project whose reputation is critical
	Password    password.Params
	// HashConcurrency bounds the password hashes run at once; default
	// GOMAXPROCS.
	HashConcurrency int
}

// Notifier sends Herald's own mail to its users (package notify).
type Notifier interface {
	// Ready reports whether platform mail can be sent now.
	Ready(ctx context.Context) bool
	// Send renders a platform template and queues it to one address.
	Send(ctx context.Context, to, subject, template string, data any) error
}

// Options are a Service's dependencies.
type Options struct {
	DB       *storage.DB
	Clock    clock.Clock
	Log      *slog.Logger
	BaseURL  string // public URL used in links
	Settings Settings
	Notifier Notifier // nil: no platform mail
	// ProjectDataRemoved is called inside a write that deletes a
	// project's contacts and emails (a reset or a delete), so that caches
	// above accounts that hold them forget them once it commits.
	ProjectDataRemoved func(tx *storage.Tx)
	// Warnings are the installation's warnings accounts does not work out
	// itself (the configuration's, the delivery checks'), shown to the
	// administrator with its own; nil: none.
	Warnings func(ctx context.Context) []string
}

// Service is the account side of Herald. Its methods are safe for
// concurrent use.
type Service struct {
	db      *storage.DB
	clock   clock.Clock
	log     *slog.Logger
	baseURL string
	opts    Settings
	hasher  *password.Hasher
	lockout *lockout
	notify  Notifier

	keys    *keyCache                                // projects by API key
	limits  *readcache.Cache[string, storage.Limits] // projects' billing caps
	billing *billingLocks

	projectDataRemoved func(tx *storage.Tx)
	warnings           func(ctx context.Context) []string
}

// New builds the account side.
func New(o Options) *Service {
	if o.Settings.SessionTTL <= 0 {
		o.Settings.SessionTTL = 168 * time.Hour
	}
	if o.Notifier == nil {
		o.Notifier = noNotifier{}
	}
	if o.ProjectDataRemoved == nil {
		o.ProjectDataRemoved = func(*storage.Tx) {}
	}
	if o.Warnings == nil {
		o.Warnings = func(context.Context) []string { return nil }
	}
	return &Service{db: o.DB, clock: o.Clock, log: o.Log, baseURL: o.BaseURL, opts: o.Settings,
		hasher: password.New(o.Settings.Password, o.Settings.HashConcurrency), lockout: newLockout(o.Clock.Now),
		notify: o.Notifier, keys: newKeyCache(o.Clock.Now), limits: readcache.New[string, storage.Limits](o.Clock.Now),
		billing: newBillingLocks(), projectDataRemoved: o.ProjectDataRemoved, warnings: o.Warnings}
}

func (s *Service) now() time.Time { return clock.Stamp(s.clock) }

// noNotifier sends nothing: a Service built without platform mail.
type noNotifier struct{}

func (noNotifier) Ready(context.Context) bool                              { return false }
func (noNotifier) Send(context.Context, string, string, string, any) error { return nil }
