package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"time"
)

// Domain is a project's sender domain with its DKIM key.
type Domain struct {
	ID            string
	ProjectID     string
	Name          string // A-labels, lower case, no trailing dot
	Verified      bool
	DKIMAlgorithm string
	DKIMSelector  string
	DKIMKey       []byte            // PKCS#8 PEM
	CheckStatus   map[string]string // record purpose -> pending | verified | failed
	Failures      int               // consecutive definite DKIM failures
	LastCheckedAt time.Time         // zero: never checked
	CreatedAt     time.Time
	UpdatedAt     time.Time
}

const domainColumns = `id, project_id, domain, verified, dkim_algorithm, dkim_selector, dkim_key,
	check_status, failures, last_checked_at, created_at, updated_at`

func scanDomain(s scanner) (Domain, error) {
	var d Domain
	var key, status string
	var checked sql.NullInt64
	var created, updated int64
	err := s.Scan(&d.ID, &d.ProjectID, &d.Name, &d.Verified, &d.DKIMAlgorithm, &d.DKIMSelector, &key,
		&status, &d.Failures, &checked, &created, &updated)
	if err != nil {
		return d, notFound(err)
	}
	d.DKIMKey = []byte(key)
	if err := json.Unmarshal([]byte(status), &d.CheckStatus); err != nil {
		return d, err
	}
	if checked.Valid {
		d.LastCheckedAt = FromMillis(checked.Int64)
	}
	d.CreatedAt, d.UpdatedAt = FromMillis(created), FromMillis(updated)
	return d, nil
}

func encodeStatus(m map[string]string) string {
	if len(m) == 0 {
		return "{}"
	}
	b, _ := json.Marshal(m) // a map of strings always encodes
	return string(b)
}

func nullMillis(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return Millis(t)
}

// InsertDomain stores a new domain.
func (tx *Tx) InsertDomain(ctx context.Context, d Domain) (err error) {
	defer wrap(&err, "Tx.InsertDomain")
	_, err = tx.Exec(ctx, `INSERT INTO domains (`+domainColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		d.ID, d.ProjectID, d.Name, d.Verified, d.DKIMAlgorithm, d.DKIMSelector, string(d.DKIMKey),
		encodeStatus(d.CheckStatus), d.Failures, nullMillis(d.LastCheckedAt), Millis(d.CreatedAt), Millis(d.UpdatedAt))
	return err
}

// UpdateDomainCheck writes the outcome of a DNS check.
func (tx *Tx) UpdateDomainCheck(ctx context.Context, d Domain) (err error) {
	defer wrap(&err, "Tx.UpdateDomainCheck")
	_, err = tx.Exec(ctx, `UPDATE domains SET verified = ?, check_status = ?, failures = ?, last_checked_at = ?,
		updated_at = ? WHERE id = ?`,
		d.Verified, encodeStatus(d.CheckStatus), d.Failures, nullMillis(d.LastCheckedAt), Millis(d.UpdatedAt), d.ID)
	return err
}

// DeleteDomain removes a domain of a project.
func (tx *Tx) DeleteDomain(ctx context.Context, projectID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteDomain")
	n, err := affected(tx.Exec(ctx, `DELETE FROM domains WHERE project_id = ? AND id = ?`, projectID, id))
	return n > 0, err
}

// DomainByID finds a domain of a project by id.
func DomainByID(ctx context.Context, q Querier, projectID, id string) (_ Domain, err error) {
	defer wrap(&err, "DomainByID")
	return scanDomain(q.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE project_id = ? AND id = ?`, projectID, id))
}

// DomainByName finds a domain of a project by name.
func DomainByName(ctx context.Context, q Querier, projectID, name string) (_ Domain, err error) {
	defer wrap(&err, "DomainByName")
	return scanDomain(q.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains WHERE project_id = ? AND domain = ?`, projectID, name))
}

// VerifiedDomain finds a domain of a project by name, if it is verified.
func VerifiedDomain(ctx context.Context, q Querier, projectID, name string) (_ Domain, err error) {
	defer wrap(&err, "VerifiedDomain")
	return scanDomain(q.QueryRow(ctx, `SELECT `+domainColumns+` FROM domains
		WHERE project_id = ? AND domain = ? AND verified = TRUE`, projectID, name))
}

// VerifiedDomainID returns the id of a project's verified sender domain,
// the one check a send makes before it signs.
func VerifiedDomainID(ctx context.Context, q Querier, projectID, name string) (_ string, err error) {
	defer wrap(&err, "VerifiedDomainID")
	var id string
	err = q.QueryRow(ctx, `SELECT id FROM domains WHERE project_id = ? AND domain = ? AND verified = TRUE`,
		projectID, name).Scan(&id)
	return id, notFound(err)
}

// VerifiedElsewhere reports whether a project other than projectID has
// verified the domain.
func VerifiedElsewhere(ctx context.Context, q Querier, projectID, name string) (_ bool, err error) {
	defer wrap(&err, "VerifiedElsewhere")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM domains WHERE domain = ? AND verified = TRUE AND project_id <> ?`,
		name, projectID).Scan(&n)
	return n > 0, err
}

// SelectorTaken reports whether any row of the domain, in any project,
// publishes its key under selector.
func SelectorTaken(ctx context.Context, q Querier, name, selector string) (_ bool, err error) {
	defer wrap(&err, "SelectorTaken")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM domains WHERE domain = ? AND dkim_selector = ?`, name, selector).Scan(&n)
	return n > 0, err
}

// ListDomains returns a project's domains, newest first.
func ListDomains(ctx context.Context, q Querier, projectID string) (_ []Domain, err error) {
	defer wrap(&err, "ListDomains")
	rows, err := q.Query(ctx, `SELECT `+domainColumns+` FROM domains WHERE project_id = ?
		ORDER BY created_at DESC, id DESC`, projectID)
	return collect(rows, err, scanDomain)
}

// DomainsAfter returns up to limit domains of every project with an id
// greater than afterID, in id order: the periodic check walks them a page
// at a time.
func DomainsAfter(ctx context.Context, q Querier, afterID string, limit int) (_ []Domain, err error) {
	defer wrap(&err, "DomainsAfter")
	rows, err := q.Query(ctx, `SELECT `+domainColumns+` FROM domains WHERE id > ? ORDER BY id LIMIT ?`, afterID, limit)
	return collect(rows, err, scanDomain)
}

// VerifiedDomainProject returns the project that verified a domain first.
func VerifiedDomainProject(ctx context.Context, q Querier, name string) (_ string, err error) {
	defer wrap(&err, "VerifiedDomainProject")
	var id string
	err = q.QueryRow(ctx, `SELECT project_id FROM domains WHERE domain = ? AND verified = TRUE ORDER BY created_at, id LIMIT 1`,
		name).Scan(&id)
	return id, notFound(err)
}
