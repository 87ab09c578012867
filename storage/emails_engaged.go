package storage

import (
	"context"
	"encoding/json"
)

// EngagedEmail is what an open or a click of an email needs of it: what
// its event says, whose it is, and the targets of its tracked links. Of
// these only ContactID changes after the email is stored (deleting the
// contact clears it), and the row goes with its project.
type EngagedEmail struct {
	ID, ProjectID, ContactID                                string
	CampaignID, TemplateID, WorkflowID, WorkflowExecutionID string
	MessageID, Sender, Subject, Source                      string
	Links                                                   []string
	Opened, Clicked                                         bool // openedAt, clickedAt are set
}

// EngagedEmailByID reads an email's EngagedEmail: the columns an open or
// a click uses, not the whole row (EmailByID).
func EngagedEmailByID(ctx context.Context, q Querier, id string) (_ EngagedEmail, err error) {
	defer wrap(&err, "EngagedEmailByID")
	var e EngagedEmail
	var links []byte
	err = q.QueryRow(ctx, `SELECT id, project_id, COALESCE(contact_id, ''), COALESCE(campaign_id, ''),
		COALESCE(template_id, ''), COALESCE(workflow_id, ''), COALESCE(workflow_execution_id, ''),
		message_id, sender, subject, links, opened_at IS NOT NULL, clicked_at IS NOT NULL, `+emailSourceColumn+`
		FROM emails WHERE id = ?`, id).Scan(&e.ID, &e.ProjectID, &e.ContactID, &e.CampaignID,
		&e.TemplateID, &e.WorkflowID, &e.WorkflowExecutionID, &e.MessageID, &e.Sender, &e.Subject, &links,
		&e.Opened, &e.Clicked, &e.Source)
	if err == nil && links != nil {
		err = json.Unmarshal(links, &e.Links)
	}
	return e, notFound(err)
}
