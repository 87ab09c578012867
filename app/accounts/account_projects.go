package accounts

import (
	"context"
	"errors"
	"regexp"
	"time"

	"github.com/heraldmail/herald/app/apierr"
	"github.com/heraldmail/herald/app/ids"
	"github.com/heraldmail/herald/storage"
)

// ProjectView is a project as its members see it; MEMBERs get no secret.
type ProjectView struct {
	ID             string    `json:"id"`
	Name           string    `json:"name"`
	Public         string    `json:"public"`
	Secret         *string   `json:"secret"`
	Disabled       bool      `json:"disabled"`
	DisabledReason *string   `json:"disabledReason"`
	Tracking       string    `json:"tracking"`
	Language       string    `json:"language"`
	Role           Role      `json:"role"`
	CreatedAt      time.Time `json:"createdAt"`
	UpdatedAt      time.Time `json:"updatedAt"`
}

func projectView(p Project, role Role) ProjectView {
	v := ProjectView{ID: p.ID, Name: p.Name, Public: p.Public, Disabled: p.Disabled, Tracking: p.Tracking,
		Language: p.Language, Role: role, CreatedAt: p.CreatedAt, UpdatedAt: p.UpdatedAt}
	if role.Includes(RoleAdmin) {
		s := p.Secret
		v.Secret = &s
	}
	if p.DisabledReason != "" {
		r := p.DisabledReason
		v.DisabledReason = &r
	}
	return v
}

// UserProjects lists the caller's projects, oldest first.
func (s *Service) UserProjects(ctx context.Context, acc Access) (_ []ProjectView, err error) {
	defer apierr.Wrap(&err, "accounts.UserProjects")
	ups, err := storage.UserProjects(ctx, s.db.Reader(), acc.UserID())
	out := make([]ProjectView, 0, len(ups))
	for _, up := range ups {
		out = append(out, projectView(up.Project, Role(up.Role)))
	}
	return out, err
}

// ViewProject is the authorized project as the caller sees it.
func (s *Service) ViewProject(acc Access) ProjectView { return projectView(acc.Project, acc.Role) }

func checkProjectName(v *apierr.Validation, name string) string {
	name, n := trimmedLen(name)
	if n < 1 || n > MaxProjectNameLength {
		v.Add("name", "too_small", "Project name must be 1 to 100 characters", nil)
		if n > MaxProjectNameLength {
			v.Fields[len(v.Fields)-1].Code = "too_big"
		}
	}
	return name
}

// CreateUserProject makes a project whose OWNER is the caller.
func (s *Service) CreateUserProject(ctx context.Context, acc Access, name *string) (_ ProjectView, err error) {
	defer apierr.Wrap(&err, "accounts.CreateUserProject")
	var v apierr.Validation
	if name == nil {
		v.Add("name", "invalid_type", "Required", "undefined")
	} else {
		*name = checkProjectName(&v, *name)
	}
	if err := v.Err(); err != nil {
		return ProjectView{}, err
	}
	now := s.now()
	p := Project{ID: ids.New(), Name: *name, Public: ids.NewKey(ids.PublicKeyPrefix), Secret: ids.NewKey(ids.SecretKeyPrefix),
		TrackingEnabled: true, Tracking: "ENABLED", Language: "en", CreatedAt: now, UpdatedAt: now}
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		n, err := storage.CountUserProjects(ctx, tx, acc.UserID())
		if err != nil {
			return err
		}
		if n >= MaxProjectsPerUser {
			return apierr.Invalid(apierr.FieldError{Field: "name", Code: "too_many",
				Message: "A user can belong to at most 100 projects"})
		}
		if err := tx.InsertProject(ctx, p); err != nil {
			return err
		}
		return tx.InsertMember(ctx, storage.Member{ProjectID: p.ID, UserID: acc.UserID(), Role: string(RoleOwner), CreatedAt: now})
	})
	return projectView(p, RoleOwner), err
}

// ProjectUpdate is the body of PATCH /users/@me/projects/{id}.
type ProjectUpdate struct {
	Name     *string
	Tracking *string
	Language *string
}

var languageTag = regexp.MustCompile(`^[a-z]{2}(-[A-Z]{2})?$`)

// UpdateProject changes a project's name, tracking or language.
func (s *Service) UpdateProject(ctx context.Context, acc Access, in ProjectUpdate) (_ ProjectView, err error) {
	defer apierr.Wrap(&err, "accounts.UpdateProject")
	var v apierr.Validation
	if in.Name != nil {
		*in.Name = checkProjectName(&v, *in.Name)
	}
	if in.Tracking != nil {
		switch *in.Tracking {
		case "ENABLED", "MARKETING_ONLY", "DISABLED":
		default:
			v.Add("tracking", "invalid_enum_value", "Expected ENABLED, MARKETING_ONLY or DISABLED", *in.Tracking)
		}
	}
	if in.Language != nil && !languageTag.MatchString(*in.Language) {
		v.Add("language", "invalid_string", "Expected a language code such as en or en-US", *in.Language)
	}
	if err := v.Err(); err != nil {
		return ProjectView{}, err
	}
	var p Project
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		err := tx.UpdateProjectSettings(ctx, acc.Project.ID, storage.ProjectSettings{Name: in.Name, Tracking: in.Tracking,
			Language: in.Language}, s.now())
		if err != nil {
			return err
		}
		p, err = storage.ProjectByID(ctx, tx, acc.Project.ID)
		tx.OnCommit(func() { s.keys.ForgetKeys(p.Public, p.Secret) }) // the cached project carries the settings
		return err
	})
	return projectView(p, acc.Role), projectErr(err)
}

func projectErr(err error) error {
	if errors.Is(err, storage.ErrNotFound) {
		return apierr.NotFound("NOT_FOUND", "Project not found")
	}
	return err
}

// RegenerateProjectKeys replaces both keys; the old ones stop at once.
func (s *Service) RegenerateProjectKeys(ctx context.Context, acc Access) (_ ProjectView, err error) {
	defer apierr.Wrap(&err, "accounts.RegenerateProjectKeys")
	p, err := s.RegenerateKeys(ctx, acc.Project.ID)
	return projectView(p, acc.Role), projectErr(err)
}

// keptOnReset are the tables a project reset keeps: its settings, keys,
// members and open invitations, sender domains, limits (columns of
// projects) and uploads.
var keptOnReset = map[string]bool{"projects": true, "project_members": true, "invitations": true, "domains": true, "uploads": true}

// ResetProject drops every piece of a project's data but its keys,
// settings, members, domains, limits and uploads.
func (s *Service) ResetProject(ctx context.Context, acc Access) (_ ProjectView, err error) {
	defer apierr.Wrap(&err, "accounts.ResetProject")
	p, err := s.ResetProjectData(ctx, acc.Project.ID)
	return projectView(p, acc.Role), err
}

// ResetProjectData is ResetProject for the operator's CLI.
func (s *Service) ResetProjectData(ctx context.Context, projectID string) (_ Project, err error) {
	defer apierr.Wrap(&err, "accounts.ResetProjectData")
	var p Project
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		s.projectDataRemoved(tx) // the reset deletes its contacts and emails
		if err := tx.ResetProject(ctx, projectID, keptOnReset); err != nil {
			return err
		}
		var err error
		p, err = storage.ProjectByID(ctx, tx, projectID)
		return err
	})
	return p, projectErr(err)
}

// DeleteProject deletes a project and everything of it; its keys stop at
// once.
func (s *Service) DeleteProject(ctx context.Context, projectID string) (err error) {
	defer apierr.Wrap(&err, "accounts.DeleteProject")
	err = s.db.Write(ctx, func(tx *storage.Tx) error {
		p, err := storage.ProjectByID(ctx, tx, projectID)
		if err != nil {
			return err
		}
		tx.OnCommit(func() { s.keys.ForgetKeys(p.Public, p.Secret) })
		tx.OnCommit(s.limits.Forget)
		s.projectDataRemoved(tx)
		return tx.DeleteProject(ctx, p.ID)
	})
	return projectErr(err)
}
