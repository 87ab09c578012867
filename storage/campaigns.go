package storage

import (
	"context"
	"database/sql"
	"encoding/json"
	"strings"
	"time"
)

// Campaign statuses.
const (
	CampaignDraft     = "DRAFT"
	CampaignScheduled = "SCHEDULED"
	CampaignSending   = "SENDING"
	CampaignSent      = "SENT"
	CampaignCancelled = "CANCELLED"
)

// Campaign is a stored campaign. Its counts are not columns: see
// CampaignCounts.
type Campaign struct {
	ID                string
	ProjectID         string
	Name              string
	Description       *string
	Subject           string
	Body              string
	From              string
	FromDomain        string
	FromName          *string
	ReplyTo           *string
	Type              string
	Status            string
	AudienceType      string
	SegmentID         *string
	AudienceCondition json.RawMessage
	ScheduledFor      *time.Time
	SentAt            *time.Time
	TotalRecipients   int
	SendToken         string
	FanoutDone        bool
	CreatedAt         time.Time
	UpdatedAt         time.Time
}

const campaignInsertColumns = `id, project_id, name, description, subject, body, from_email, from_domain, from_name,
	reply_to, type, status, audience_type, segment_id, audience_condition, scheduled_for, sent_at,
	total_recipients, send_token, fanout_done, created_at, updated_at`

const campaignColumns = `id, project_id, name, description, subject, body, from_email, from_domain, from_name,
	reply_to, type, status, audience_type, segment_id, audience_condition, scheduled_for, sent_at,
	total_recipients, COALESCE(send_token, ''), fanout_done, created_at, updated_at`

func scanCampaign(s scanner) (Campaign, error) {
	var c Campaign
	var desc, fromName, replyTo, segment, cond sql.NullString
	var scheduled, sent sql.NullInt64
	var created, updated int64
	err := s.Scan(&c.ID, &c.ProjectID, &c.Name, &desc, &c.Subject, &c.Body, &c.From, &c.FromDomain, &fromName,
		&replyTo, &c.Type, &c.Status, &c.AudienceType, &segment, &cond, &scheduled, &sent,
		&c.TotalRecipients, &c.SendToken, &c.FanoutDone, &created, &updated)
	c.Description, c.FromName, c.ReplyTo, c.SegmentID = stringPtr(desc), stringPtr(fromName), stringPtr(replyTo), stringPtr(segment)
	if cond.Valid {
		c.AudienceCondition = json.RawMessage(cond.String)
	}
	c.ScheduledFor, c.SentAt = optTime(scheduled), optTime(sent)
	c.CreatedAt, c.UpdatedAt = FromMillis(created), FromMillis(updated)
	return c, notFound(err)
}

func optMillis(t *time.Time) any {
	if t == nil {
		return nil
	}
	return Millis(*t)
}

func (c Campaign) args() []any {
	return []any{c.ID, c.ProjectID, c.Name, c.Description, c.Subject, c.Body, c.From, c.FromDomain, c.FromName,
		c.ReplyTo, c.Type, c.Status, c.AudienceType, c.SegmentID, nullableJSON(c.AudienceCondition),
		optMillis(c.ScheduledFor), optMillis(c.SentAt), c.TotalRecipients, nullable(c.SendToken), c.FanoutDone,
		Millis(c.CreatedAt), Millis(c.UpdatedAt)}
}

// InsertCampaign stores a new campaign.
func (tx *Tx) InsertCampaign(ctx context.Context, c Campaign) (err error) {
	defer wrap(&err, "Tx.InsertCampaign")
	_, err = tx.Exec(ctx, `INSERT INTO campaigns (`+campaignInsertColumns+`)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.args()...)
	return err
}

// UpdateCampaign writes every field of a campaign but its id, project and
// creation time.
func (tx *Tx) UpdateCampaign(ctx context.Context, c Campaign) (err error) {
	defer wrap(&err, "Tx.UpdateCampaign")
	_, err = tx.Exec(ctx, `UPDATE campaigns SET name = ?, description = ?, subject = ?, body = ?, from_email = ?,
		from_domain = ?, from_name = ?, reply_to = ?, type = ?, status = ?, audience_type = ?, segment_id = ?,
		audience_condition = ?, scheduled_for = ?, sent_at = ?, total_recipients = ?, send_token = ?,
		fanout_done = ?, updated_at = ? WHERE id = ? AND project_id = ?`,
		c.Name, c.Description, c.Subject, c.Body, c.From, c.FromDomain, c.FromName, c.ReplyTo, c.Type, c.Status,
		c.AudienceType, c.SegmentID, nullableJSON(c.AudienceCondition), optMillis(c.ScheduledFor),
		optMillis(c.SentAt), c.TotalRecipients, nullable(c.SendToken), c.FanoutDone, Millis(c.UpdatedAt),
		c.ID, c.ProjectID)
	return err
}

// DeleteCampaign removes a campaign. Its email rows stay: they are the
// record of what was sent.
func (tx *Tx) DeleteCampaign(ctx context.Context, projectID, id string) (_ bool, err error) {
	defer wrap(&err, "Tx.DeleteCampaign")
	n, err := affected(tx.Exec(ctx, `DELETE FROM campaigns WHERE project_id = ? AND id = ?`, projectID, id))
	return n > 0, err
}

// CampaignByID finds a campaign of a project.
func CampaignByID(ctx context.Context, q Querier, projectID, id string) (_ Campaign, err error) {
	defer wrap(&err, "CampaignByID")
	return scanCampaign(q.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE project_id = ? AND id = ?`, projectID, id))
}

// CampaignByIDAnyProject finds a campaign by id alone: the jobs of a send.
func CampaignByIDAnyProject(ctx context.Context, q Querier, id string) (_ Campaign, err error) {
	defer wrap(&err, "CampaignByIDAnyProject")
	return scanCampaign(q.QueryRow(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE id = ?`, id))
}

// CampaignFilter selects campaigns for GET /campaigns.
type CampaignFilter struct {
	ProjectID string
	Status    string // "" for all
	Search    string // substring of name, subject or from address
}

// Campaign sort columns: the only identifiers a list query takes from the
// request, through this allow-list.
const (
	CampaignSortCreated = "created_at"
	CampaignSortUpdated = "updated_at"
	CampaignSortName    = "name"
)

const campaignFilterSQL = ` FROM campaigns WHERE project_id = ?1 AND (?2 = '' OR status = ?2)
	AND (?3 = '' OR name LIKE ?3 ESCAPE '\' OR subject LIKE ?3 ESCAPE '\' OR from_email LIKE ?3 ESCAPE '\')`

func (f CampaignFilter) args() []any {
	search := ""
	if s := strings.TrimSpace(f.Search); s != "" {
		search = likePattern(s)
	}
	return []any{f.ProjectID, f.Status, search}
}

// ListCampaigns returns one page of campaigns sorted by an allow-listed
// column (the CampaignSort constants), ties broken by id.
func ListCampaigns(ctx context.Context, q Querier, f CampaignFilter, sort string, desc bool, offset, limit int) (_ []Campaign, err error) {
	defer wrap(&err, "ListCampaigns")
	switch sort {
	case CampaignSortCreated, CampaignSortUpdated, CampaignSortName:
	default:
		sort = CampaignSortCreated
	}
	dir := " ASC"
	if desc {
		dir = " DESC"
	}
	query := `SELECT ` + campaignColumns + campaignFilterSQL + ` ORDER BY ` + sort + dir + `, id` + dir + ` LIMIT ?4 OFFSET ?5`
	rows, err := q.Query(ctx, query, append(f.args(), limit, offset)...)
	return collect(rows, err, scanCampaign)
}

// CountCampaigns counts the campaigns a filter selects.
func CountCampaigns(ctx context.Context, q Querier, f CampaignFilter) (_ int, err error) {
	defer wrap(&err, "CountCampaigns")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*)`+campaignFilterSQL, f.args()...).Scan(&n)
	return n, err
}

// CampaignsUsingSegment counts the project's SCHEDULED or SENDING
// campaigns whose segmentId is the segment or whose audience condition
// names it.
func CampaignsUsingSegment(ctx context.Context, q Querier, projectID, segmentID string) (_ int, err error) {
	defer wrap(&err, "CampaignsUsingSegment")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM campaigns WHERE project_id = ?1 AND status IN ('SCHEDULED', 'SENDING')
		AND (segment_id = ?2 OR instr(audience_condition, ?2) > 0)`, projectID, segmentID).Scan(&n)
	return n, err
}

// CountActiveCampaignsFromDomain counts the project's SCHEDULED or SENDING
// campaigns that send from a domain.
func CountActiveCampaignsFromDomain(ctx context.Context, q Querier, projectID, domain string) (_ int, err error) {
	defer wrap(&err, "CountActiveCampaignsFromDomain")
	var n int
	err = q.QueryRow(ctx, `SELECT COUNT(*) FROM campaigns WHERE project_id = ? AND from_domain = ?
		AND status IN ('SCHEDULED', 'SENDING')`, projectID, domain).Scan(&n)
	return n, err
}

// UpcomingCampaigns lists the project's SCHEDULED campaigns, soonest first.
func UpcomingCampaigns(ctx context.Context, q Querier, projectID string, limit int) (_ []Campaign, err error) {
	defer wrap(&err, "UpcomingCampaigns")
	rows, err := q.Query(ctx, `SELECT `+campaignColumns+` FROM campaigns WHERE project_id = ? AND status = 'SCHEDULED'
		ORDER BY scheduled_for, id LIMIT ?`, projectID, limit)
	return collect(rows, err, scanCampaign)
}
