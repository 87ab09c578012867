package accounts

import (
	"context"
	"errors"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/verify"
	"github.com/heraldmail/herald/storage"
)

// Member is a user's membership of a project as the API shows it.
type Member struct {
	UserID    string    `json:"userId"`
	Email     string    `json:"email"`
	Role      Role      `json:"role"`
	CreatedAt time.Time `json:"createdAt"`
}

func memberView(m storage.Member) Member {
	return Member{UserID: m.UserID, Email: m.Email, Role: Role(m.Role), CreatedAt: m.CreatedAt}
}

var errMemberNotFound = apierr.NotFound("NOT_FOUND", "No such member of this project")

// ListMembers returns the project's members, oldest first.
func (s *Service) ListMembers(ctx context.Context, acc Access) (_ []Member, err error) {
	defer apierr.Wrap(&err, "accounts.ListMembers")
	ms, err := storage.ListMembers(ctx, s.db.Reader(), acc.Project.ID)
	out := make([]Member, 0, len(ms))
	for _, m := range ms {
		out = append(out, memberView(m))
	}
	return out, err
}

// checkRole validates a role field; nil gives def.
func checkRole(v *apierr.Validation, role *string, def Role) Role {
	if role == nil {
		return def
	}
	if !ValidRole(*role) {
		v.Add("role", "invalid_enum_value", "Expected OWNER, ADMIN or MEMBER", *role)
	}
	return Role(*role)
}

// AddMember adds a user to the project. An email that has no account yet
// gets an invitation instead (invitations.go), unless sign-up is closed
// entirely: then it is 404 USER_NOT_FOUND. Granting OWNER takes an OWNER.
func (s *Service) AddMember(ctx context.Context, acc Access, email, role *string) (_ Added, err error) {
	defer apierr.Wrap(&err, "accounts.AddMember")
	var v apierr.Validation
	r := checkRole(&v, role, RoleMember)
	if r == RoleOwner && !acc.Role.Includes(RoleOwner) {
		return Added{}, ErrForbidden
	}
	var e string
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	} else {
		e = verify.CheckEmail(&v, "email", *email)
	}
	if err := v.Err(); err != nil {
		return Added{}, err
	}
	inv := s.newInvite(acc, e, r)
	m, err := s.addMember(ctx, acc.Project.ID, e, r, inv)
	if err != nil || m != nil {
		return Added{Member: m}, err
	}
	return Added{Invitation: s.sendInvitation(ctx, acc, inv)}, nil
}

// AddMemberByEmail is AddMember for the operator's CLI: an existing user
// only.
func (s *Service) AddMemberByEmail(ctx context.Context, projectID, email, role string) (_ Member, err error) {
	defer apierr.Wrap(&err, "accounts.AddMemberByEmail")
	var v apierr.Validation
	r := checkRole(&v, &role, RoleMember)
	e := verify.CheckEmail(&v, "email", email)
	if err := v.Err(); err != nil {
		return Member{}, err
	}
	if _, err := storage.ProjectByID(ctx, s.db.Reader(), projectID); err != nil {
		if errors.Is(err, storage.ErrNotFound) {
			return Member{}, apierr.NotFound("NOT_FOUND", "No project %s", projectID)
		}
		return Member{}, err
	}
	m, err := s.addMember(ctx, projectID, e, r, nil)
	if m == nil {
		return Member{}, err
	}
	return *m, err
}

// addMember adds the user of email to the project. An email without an
// account is invited when inv is set (the member is then nil), else 404.
func (s *Service) addMember(ctx context.Context, projectID, email string, r Role, inv *invite) (*Member, error) {
	var m *Member
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		m = nil
		u, err := storage.UserByEmail(ctx, tx, email)
		if errors.Is(err, storage.ErrNotFound) {
			if inv == nil {
				return errUserNotFound
			}
			return s.insertInvitation(ctx, tx, inv)
		}
		if err != nil {
			return err
		}
		if _, err := storage.MemberOf(ctx, tx, projectID, u.ID); err == nil {
			return apierr.Conflict("This user is already a member of the project")
		}
		added, err := s.insertMember(ctx, tx, projectID, u, r)
		m = &added
		return err
	})
	return m, err
}

// insertMember makes a user a member, within the limits of members per
// project and projects per user.
func (s *Service) insertMember(ctx context.Context, tx *storage.Tx, projectID string, u storage.User, r Role) (Member, error) {
	if n, err := storage.CountMembers(ctx, tx, projectID, ""); err != nil || n >= MaxMembersPerProject {
		if err != nil {
			return Member{}, err
		}
		return Member{}, apierr.Invalid(apierr.FieldError{Field: "email", Code: "too_many", Message: "A project can have at most 1,000 members"})
	}
	if n, err := storage.CountUserProjects(ctx, tx, u.ID); err != nil || n >= MaxProjectsPerUser {
		if err != nil {
			return Member{}, err
		}
		return Member{}, apierr.Invalid(apierr.FieldError{Field: "email", Code: "too_many", Message: "A user can belong to at most 100 projects"})
	}
	m := storage.Member{ProjectID: projectID, UserID: u.ID, Email: u.Email, Role: string(r), CreatedAt: s.now()}
	err := tx.InsertMember(ctx, m)
	if errors.Is(err, storage.ErrDuplicate) {
		return Member{}, apierr.Conflict("This user is already a member of the project")
	}
	return memberView(m), err
}

// UpdateMember changes a member's role. Changing an OWNER, or making one,
// takes an OWNER; the last OWNER cannot be demoted.
func (s *Service) UpdateMember(ctx context.Context, acc Access, userID string, role *string) (_ Member, err error) {
	defer apierr.Wrap(&err, "accounts.UpdateMember")
	var v apierr.Validation
	if role == nil {
		v.Add("role", "invalid_type", "Required", "undefined")
	}
	r := checkRole(&v, role, "")
	if r == RoleOwner && !acc.Role.Includes(RoleOwner) {
		return Member{}, ErrForbidden
	}
	var m storage.Member
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		var err error
		m, err = storage.MemberOf(ctx, tx, acc.Project.ID, userID)
		if errors.Is(err, storage.ErrNotFound) {
			return errMemberNotFound
		}
		if err != nil {
			return err
		}
		if Role(m.Role) == RoleOwner && !acc.Role.Includes(RoleOwner) {
			return ErrForbidden
		}
		if err := v.Err(); err != nil {
			return err
		}
		if err := s.keepAnOwner(ctx, tx, m, r); err != nil {
			return err
		}
		m.Role = string(r)
		return tx.SetMemberRole(ctx, acc.Project.ID, userID, string(r))
	})
	return memberView(m), err
}

// keepAnOwner refuses to take OWNER from the project's last owner.
func (s *Service) keepAnOwner(ctx context.Context, tx *storage.Tx, m storage.Member, next Role) error {
	if Role(m.Role) != RoleOwner || next == RoleOwner {
		return nil
	}
	n, err := storage.CountMembers(ctx, tx, m.ProjectID, string(RoleOwner))
	if err != nil {
		return err
	}
	if n <= 1 {
		return apierr.Conflict("A project needs at least one OWNER")
	}
	return nil
}

// RemoveMember takes a user out of the project. Nobody removes
// themselves; removing an OWNER takes an OWNER.
func (s *Service) RemoveMember(ctx context.Context, acc Access, userID string) (err error) {
	defer apierr.Wrap(&err, "accounts.RemoveMember")
	if userID == acc.UserID() {
		return &apierr.Error{Kind: apierr.KindForbidden, Code: "FORBIDDEN", Message: "You cannot remove yourself from a project"}
	}
	return s.db.Write(ctx, func(tx *storage.Tx) error {
		m, err := storage.MemberOf(ctx, tx, acc.Project.ID, userID)
		if errors.Is(err, storage.ErrNotFound) {
			return errMemberNotFound
		}
		if err != nil {
			return err
		}
		if Role(m.Role) == RoleOwner && !acc.Role.Includes(RoleOwner) {
			return ErrForbidden
		}
		if err := s.keepAnOwner(ctx, tx, m, ""); err != nil {
			return err
		}
		return tx.DeleteMember(ctx, acc.Project.ID, userID)
	})
}
