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
func (s *Service) ListMembers(ctx context.Context, acc Access) ([]Member, error) {
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

// AddMember adds an existing user to the project. Granting OWNER takes an
// OWNER.
func (s *Service) AddMember(ctx context.Context, acc Access, email, role *string) (Member, error) {
	var v apierr.Validation
	r := checkRole(&v, role, RoleMember)
	if r == RoleOwner && !acc.Role.Includes(RoleOwner) {
		return Member{}, ErrForbidden
	}
	var e string
	if email == nil {
		v.Add("email", "invalid_type", "Required", "undefined")
	} else {
		e = verify.CheckEmail(&v, "email", *email)
	}
	if err := v.Err(); err != nil {
		return Member{}, err
	}
	return s.addMember(ctx, acc.Project.ID, e, r)
}

// AddMemberByEmail is AddMember for the operator's CLI.
func (s *Service) AddMemberByEmail(ctx context.Context, projectID, email, role string) (Member, error) {
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
	return s.addMember(ctx, projectID, e, r)
}

func (s *Service) addMember(ctx context.Context, projectID, email string, r Role) (Member, error) {
	var m storage.Member
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
		u, err := storage.UserByEmail(ctx, tx, email)
		if errors.Is(err, storage.ErrNotFound) {
			return apierr.NotFound("USER_NOT_FOUND", "No user with this email")
		}
		if err != nil {
			return err
		}
		if _, err := storage.MemberOf(ctx, tx, projectID, u.ID); err == nil {
			return apierr.Conflict("This user is already a member of the project")
		}
		if n, err := storage.CountMembers(ctx, tx, projectID, ""); err != nil || n >= MaxMembersPerProject {
			if err != nil {
				return err
			}
			return apierr.Invalid(apierr.FieldError{Field: "email", Code: "too_many", Message: "A project can have at most 1,000 members"})
		}
		if n, err := storage.CountUserProjects(ctx, tx, u.ID); err != nil || n >= MaxProjectsPerUser {
			if err != nil {
				return err
			}
			return apierr.Invalid(apierr.FieldError{Field: "email", Code: "too_many", Message: "A user can belong to at most 100 projects"})
		}
		m = storage.Member{ProjectID: projectID, UserID: u.ID, Email: u.Email, Role: string(r), CreatedAt: s.now()}
		err = tx.InsertMember(ctx, m)
		if errors.Is(err, storage.ErrDuplicate) {
			return apierr.Conflict("This user is already a member of the project")
		}
		return err
	})
	return memberView(m), err
}

// UpdateMember changes a member's role. Changing an OWNER, or making one,
// takes an OWNER; the last OWNER cannot be demoted.
func (s *Service) UpdateMember(ctx context.Context, acc Access, userID string, role *string) (Member, error) {
	var v apierr.Validation
	if role == nil {
		v.Add("role", "invalid_type", "Required", "undefined")
	}
	r := checkRole(&v, role, "")
	if r == RoleOwner && !acc.Role.Includes(RoleOwner) {
		return Member{}, ErrForbidden
	}
	var m storage.Member
	err := s.db.Write(ctx, func(tx *storage.Tx) error {
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
func (s *Service) RemoveMember(ctx context.Context, acc Access, userID string) error {
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
