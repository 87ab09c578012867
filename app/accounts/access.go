package accounts

import (
	"context"
	"errors"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/storage"
)

// Role is a user's role in a project. Each includes the ones below it.
type Role string

// The roles, lowest first.
const (
	RoleMember Role = "MEMBER" // resources and every read
	RoleAdmin  Role = "ADMIN"  // + settings, keys, limits, members
	RoleOwner  Role = "OWNER"  // + reset, delete, granting and removing OWNER
)

func (r Role) rank() int {
	switch r {
	case RoleMember:
		return 1
	case RoleAdmin:
		return 2
	case RoleOwner:
		return 3
	}
	return 0
}

// Includes reports whether r may do what need may.
func (r Role) Includes(need Role) bool { return r.rank() >= need.rank() }

// ValidRole reports whether s names a role.
func ValidRole(s string) bool { return Role(s).rank() > 0 }

// Access is what authorization yields: the project a request acts on and
// the caller's role in it. A key's caller has no user and acts with the
// key's full rights on resources.
type Access struct {
	Project Project
	Role    Role
	user    *storage.User
}

// UserID is the caller's user id; "" for an API key.
func (acc Access) UserID() string {
	if acc.user == nil {
		return ""
	}
	return acc.user.ID
}

// Credentials are what a request presents.
type Credentials struct {
	Authorization bool   // an Authorization header was sent
	Key           string // its bearer token; "" when malformed
	Session       string // the session cookie's value; "" for none
	ProjectID     string // X-Project-Id, or the project of the path
}

// Rule is a route's access rule.
type Rule struct {
	// Keys is the key kind the route takes (0: none).
	Keys KeyKind
	// Session: the route also takes the session cookie (with X-Project-Id
	// when Keys is set, since the key names no project then).
	Session bool
	// Project: the route acts on the project of Credentials.ProjectID
	// (resources: X-Project-Id; account routes: the path's {id}).
	Project bool
	// Role is the least role the session's user needs in the project.
	Role Role
	// Unverified lets a user whose email is not verified through.
	Unverified bool
}

var errProjectAccess = &apierr.Error{Kind: apierr.KindForbidden, Code: "PROJECT_ACCESS_DENIED",
	Message: "You have no access to this project"}

// ErrForbidden is the answer to a role that is not enough.
var ErrForbidden = &apierr.Error{Kind: apierr.KindForbidden, Code: "FORBIDDEN", Message: "Your role in this project does not allow this"}

// Authorize is the one authorization step of every route that takes a
// credential: it finds the caller, the project and the caller's role in
// it, and checks the route's rule. Handlers get its Access and check no
// role themselves.
func (s *Service) Authorize(ctx context.Context, c Credentials, r Rule) (Access, error) {
	if r.Keys != 0 && (c.Authorization || !r.Session || c.Session == "") {
		// The key path: an Authorization header wins over a cookie.
		if !c.Authorization || c.Key == "" {
			return Access{}, &apierr.Error{Kind: apierr.KindUnauthorized, Code: "MISSING_AUTH",
				Message:    "Missing or malformed Authorization header",
				Suggestion: "Send Authorization: Bearer <key> with your project's API key"}
		}
		p, err := s.Authenticate(ctx, c.Key, r.Keys)
		return Access{Project: p, Role: RoleOwner}, err
	}
	if !r.Session {
		return Access{}, nil
	}
	u, err := s.sessionUser(ctx, c.Session)
	if err != nil {
		return Access{}, err
	}
	acc := Access{user: &u}
	if !u.EmailVerified && !r.Unverified {
		return acc, &apierr.Error{Kind: apierr.KindForbidden, Code: "EMAIL_NOT_VERIFIED", Message: "Verify your email address first",
			Suggestion: "Follow the link in the verification email, or ask for a new one (POST /auth/request-verification)"}
	}
	if !r.Project {
		return acc, nil
	}
	if c.ProjectID == "" {
		return acc, apierr.BadRequest("X-Project-Id header is required with a session cookie")
	}
	m, err := storage.MemberOf(ctx, s.db.Reader(), c.ProjectID, u.ID)
	if errors.Is(err, storage.ErrNotFound) {
		return acc, errProjectAccess
	}
	if err != nil {
		return acc, err
	}
	acc.Role = Role(m.Role)
	if !acc.Role.Includes(r.Role) {
		return acc, ErrForbidden
	}
	if acc.Project, err = storage.ProjectByID(ctx, s.db.Reader(), c.ProjectID); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return acc, errProjectAccess
		}
		return acc, err
	}
	if r.Keys != 0 && acc.Project.Disabled {
		return acc, &apierr.Error{Kind: apierr.KindForbidden, Code: "PROJECT_DISABLED", Message: "This project is disabled"}
	}
	return acc, nil
}
