package storage

import (
	"context"
	"time"
)

// Setup is what a project's onboarding checklist reads.
type Setup struct {
	VerifiedDomain     bool
	SentEmail          bool
	Contacts           int64
	LastCampaignSentAt *time.Time
	EnabledWorkflow    bool
}

const (
	hasWorkflowsEnabledSQL = `SELECT EXISTS (SELECT 1 FROM pragma_table_info('workflows') WHERE name = 'enabled')`
	hasWorkflowsEnabledPG  = `SELECT EXISTS (SELECT 1 FROM information_schema.columns
		WHERE table_schema = current_schema() AND table_name = 'workflows' AND column_name = 'enabled')`
)

// ProjectSetup reads a project's onboarding state. Workflows are counted
// only when the schema has them (a workflows table with an enabled column).
func ProjectSetup(ctx context.Context, q Querier, projectID string) (_ Setup, err error) {
	defer wrap(&err, "ProjectSetup")
	var s Setup
	var last *int64
	err = q.QueryRow(ctx, `SELECT
		EXISTS (SELECT 1 FROM domains WHERE project_id = ?1 AND verified = TRUE),
		EXISTS (SELECT 1 FROM emails WHERE project_id = ?1),
		(SELECT count(*) FROM contacts WHERE project_id = ?1),
		(SELECT max(sent_at) FROM campaigns WHERE project_id = ?1 AND status IN ('SENDING', 'SENT'))`, projectID).
		Scan(&s.VerifiedDomain, &s.SentEmail, &s.Contacts, &last)
	if err != nil {
		return s, err
	}
	if last != nil {
		t := FromMillis(*last)
		s.LastCampaignSentAt = &t
	}
	var hasWorkflows bool
	if err := q.QueryRow(ctx, hasWorkflowsEnabledSQL).
		Scan(&hasWorkflows); err != nil || !hasWorkflows {
		return s, err
	}
	err = q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM workflows WHERE project_id = ? AND enabled = TRUE)`, projectID).
		Scan(&s.EnabledWorkflow)
	return s, err
}
