package web

import (
	"net/http"

	"github.com/heraldmail/herald/app/accounts"
	"github.com/heraldmail/herald/app/audience"
)

// route is one row of the routes table.
type route struct {
	method     string
	path       string
	auth       authKind
	handle     func(http.ResponseWriter, *http.Request) error
	maxBody    int64 // 0: defaultBodyLimit
	idempotent bool  // honours Idempotency-Key
	// role is the least role an authProject route needs (see auth.go).
	role accounts.Role
	// unverified lets a user whose email is unverified reach an authUser
	// route.
	unverified bool
}

func (rt route) bodyLimit() int64 {
	if rt.maxBody > 0 {
		return rt.maxBody
	}
	return defaultBodyLimit
}

// routes is every endpoint Herald serves. To find the code of an
// endpoint, find its row here and follow the handler's name.
func (s *Server) routes() []route {
	return []route{
		// Public API
		{method: "POST", path: "/v1/send", auth: authSecret, handle: s.send, idempotent: true, maxBody: maxSendBody},
		{method: "POST", path: "/v1/track", auth: authPublic, handle: s.track, idempotent: true},
		{method: "POST", path: "/v1/verify", auth: authSecret, handle: s.verify},

		// Contacts
		{method: "GET", path: "/contacts", auth: authSecret, handle: s.listContacts},
		{method: "POST", path: "/contacts", auth: authSecret, handle: s.upsertContact},
		{method: "GET", path: "/contacts/:id", auth: authSecret, handle: s.getContact},
		{method: "PATCH", path: "/contacts/:id", auth: authSecret, handle: s.updateContact},
		{method: "DELETE", path: "/contacts/:id", auth: authSecret, handle: s.deleteContact},
		{method: "POST", path: "/contacts/lookup", auth: authSecret, handle: s.lookupContacts},
		{method: "GET", path: "/contacts/fields", auth: authSecret, handle: s.contactFields},
		{method: "GET", path: "/contacts/fields/:field/values", auth: authSecret, handle: s.contactFieldValues},
		{method: "GET", path: "/contacts/fields/:field/usage", auth: authSecret, handle: s.contactFieldUsage},
		{method: "DELETE", path: "/contacts/fields/:field", auth: authSecret, handle: s.deleteContactField},
		{method: "POST", path: "/contacts/import", auth: authSecret, handle: s.importContacts, maxBody: audience.MaxImportBytes + 1<<20},
		{method: "GET", path: "/contacts/import/:jobId", auth: authSecret, handle: s.importStatus},
		{method: "POST", path: "/contacts/bulk-subscribe", auth: authSecret, handle: s.bulk(audience.BulkSubscribe)},
		{method: "POST", path: "/contacts/bulk-unsubscribe", auth: authSecret, handle: s.bulk(audience.BulkUnsubscribe)},
		{method: "POST", path: "/contacts/bulk-delete", auth: authSecret, handle: s.bulk(audience.BulkDelete)},
		{method: "GET", path: "/contacts/bulk/:jobId", auth: authSecret, handle: s.bulkStatus},

		// Events
		{method: "POST", path: "/events/track", auth: authSecret, handle: s.track},
		{method: "GET", path: "/events", auth: authSecret, handle: s.listEvents},
		{method: "GET", path: "/events/stats", auth: authSecret, handle: s.eventStats},
		{method: "GET", path: "/events/names", auth: authSecret, handle: s.eventNames},
		{method: "GET", path: "/events/contact/:contactId", auth: authSecret, handle: s.contactEvents},
		{method: "GET", path: "/events/:eventName/usage", auth: authSecret, handle: s.eventUsage},
		{method: "DELETE", path: "/events/:eventName", auth: authSecret, handle: s.deleteEvents},

		// Templates
		{method: "GET", path: "/templates", auth: authSecret, handle: s.listTemplates},
		{method: "POST", path: "/templates", auth: authSecret, handle: s.createTemplate},
		{method: "GET", path: "/templates/:id", auth: authSecret, handle: s.getTemplate},
		{method: "PATCH", path: "/templates/:id", auth: authSecret, handle: s.updateTemplate},
		{method: "DELETE", path: "/templates/:id", auth: authSecret, handle: s.deleteTemplate},
		{method: "POST", path: "/templates/:id/duplicate", auth: authSecret, handle: s.duplicateTemplate},
		{method: "GET", path: "/templates/:id/usage", auth: authSecret, handle: s.templateUsage},

		// Sender domains
		{method: "GET", path: "/domains/project/:projectId", auth: authSecret, handle: s.listDomains},
		{method: "POST", path: "/domains", auth: authSecret, handle: s.addDomain},
		{method: "GET", path: "/domains/:id/verify", auth: authSecret, handle: s.verifyDomain},
		{method: "DELETE", path: "/domains/:id", auth: authSecret, handle: s.deleteDomain},

		// Links in sent mail: tracking and the subscription pages
		{method: "GET", path: "/t/o/:token", auth: authNone, handle: s.openPixel},
		{method: "GET", path: "/t/c/:token", auth: authNone, handle: s.clickRedirect},
		{method: "GET", path: "/unsubscribe/:token", auth: authNone, handle: s.preferencePage(unsubscribePage)},
		{method: "POST", path: "/unsubscribe/:token", auth: authNone, handle: s.changeSubscription(false, false)},
		{method: "GET", path: "/subscribe/:token", auth: authNone, handle: s.preferencePage(subscribePage)},
		{method: "POST", path: "/subscribe/:token", auth: authNone, handle: s.changeSubscription(true, false)},
		{method: "GET", path: "/manage/:token", auth: authNone, handle: s.preferencePage(managePage)},
		{method: "POST", path: "/manage/:token", auth: authNone, handle: s.changeSubscription(false, true)},

		// Internal inbound notifications; the SNS signature authenticates
		{method: "POST", path: "/webhooks/sns", auth: authNone, handle: s.snsWebhook},

		// Configuration
		{method: "GET", path: "/config", auth: authNone, handle: s.config},

		// Segments
		{method: "GET", path: "/segments", auth: authSecret, handle: s.listSegments},
		{method: "POST", path: "/segments", auth: authSecret, handle: s.createSegment},
		{method: "GET", path: "/segments/:id", auth: authSecret, handle: s.getSegment},
		{method: "PATCH", path: "/segments/:id", auth: authSecret, handle: s.updateSegment},
		{method: "DELETE", path: "/segments/:id", auth: authSecret, handle: s.deleteSegment},
		{method: "GET", path: "/segments/:id/contacts", auth: authSecret, handle: s.segmentContacts},
		{method: "POST", path: "/segments/:id/members", auth: authSecret, handle: s.addSegmentMembers},
		{method: "DELETE", path: "/segments/:id/members", auth: authSecret, handle: s.removeSegmentMembers},
		{method: "POST", path: "/segments/:id/compute", auth: authSecret, handle: s.computeSegment},
		{method: "POST", path: "/segments/:id/refresh", auth: authSecret, handle: s.refreshSegment},
		{method: "POST", path: "/audience/count", auth: authSecret, handle: s.countAudience},

		// Campaigns
		{method: "GET", path: "/campaigns", auth: authSecret, handle: s.listCampaigns},
		{method: "POST", path: "/campaigns", auth: authSecret, handle: s.createCampaign},
		{method: "GET", path: "/campaigns/:id", auth: authSecret, handle: s.getCampaign},
		{method: "PUT", path: "/campaigns/:id", auth: authSecret, handle: s.updateCampaign},
		{method: "DELETE", path: "/campaigns/:id", auth: authSecret, handle: s.deleteCampaign},
		{method: "POST", path: "/campaigns/:id/duplicate", auth: authSecret, handle: s.duplicateCampaign},
		{method: "POST", path: "/campaigns/:id/send", auth: authSecret, handle: s.sendCampaign},
		{method: "POST", path: "/campaigns/:id/cancel", auth: authSecret, handle: s.cancelCampaign},
		{method: "POST", path: "/campaigns/:id/test", auth: authSecret, handle: s.testCampaign},
		{method: "GET", path: "/campaigns/:id/stats", auth: authSecret, handle: s.campaignStats},

		// Activity and analytics
		{method: "GET", path: "/activity", auth: authSecret, handle: s.listActivity},
		{method: "GET", path: "/activity/stats", auth: authSecret, handle: s.activityStats},
		{method: "GET", path: "/activity/recent-count", auth: authSecret, handle: s.activityRecentCount},
		{method: "GET", path: "/activity/types", auth: authSecret, handle: s.activityTypes},
		{method: "GET", path: "/activity/upcoming", auth: authSecret, handle: s.activityUpcoming},
		{method: "GET", path: "/analytics/timeseries", auth: authSecret, handle: s.analyticsTimeseries},
		{method: "GET", path: "/analytics/top-campaigns", auth: authSecret, handle: s.analyticsTopCampaigns},
		{method: "GET", path: "/analytics/campaign-stats", auth: authSecret, handle: s.analyticsCampaignStats},
		{method: "GET", path: "/analytics/top-events", auth: authSecret, handle: s.analyticsTopEvents},

		// Accounts: login and sessions (contracts/accounts.md)
		{method: "POST", path: "/auth/signup", auth: authLogin, handle: s.signup},
		{method: "POST", path: "/auth/login", auth: authLogin, handle: s.login},
		{method: "GET", path: "/auth/logout", auth: authLogin, handle: s.logout},
		{method: "POST", path: "/auth/logout", auth: authLogin, handle: s.logout},
		{method: "GET", path: "/auth/oauth-config", auth: authLogin, handle: s.oauthConfig},
		{method: "POST", path: "/auth/verify-email", auth: authLogin, handle: s.verifyEmail},
		{method: "POST", path: "/auth/request-verification", auth: authLogin, handle: s.requestVerification},
		{method: "POST", path: "/auth/request-password-reset", auth: authLogin, handle: s.requestPasswordReset},
		{method: "POST", path: "/auth/reset-password", auth: authLogin, handle: s.resetPassword},
		{method: "GET", path: "/users/@me", auth: authUser, unverified: true, handle: s.me},
		{method: "POST", path: "/users/@me/password", auth: authUser, handle: s.changePassword},

		// Accounts: projects and members; the role is the least one needed
		{method: "GET", path: "/users/@me/projects", auth: authUser, handle: s.listUserProjects},
		{method: "POST", path: "/users/@me/projects", auth: authUser, handle: s.createUserProject},
		{method: "GET", path: "/users/@me/projects/:id", auth: authProject, role: accounts.RoleMember, handle: s.getUserProject},
		{method: "PATCH", path: "/users/@me/projects/:id", auth: authProject, role: accounts.RoleAdmin, handle: s.updateUserProject},
		{method: "DELETE", path: "/users/@me/projects/:id", auth: authProject, role: accounts.RoleOwner, handle: s.deleteUserProject},
		{method: "POST", path: "/users/@me/projects/:id/regenerate-keys", auth: authProject, role: accounts.RoleAdmin, handle: s.regenerateKeys},
		{method: "POST", path: "/users/@me/projects/:id/reset", auth: authProject, role: accounts.RoleOwner, handle: s.resetProject},
		{method: "GET", path: "/projects/:id/members", auth: authProject, role: accounts.RoleMember, handle: s.listMembers},
		{method: "POST", path: "/projects/:id/members", auth: authProject, role: accounts.RoleAdmin, handle: s.addMember},
		{method: "PATCH", path: "/projects/:id/members/:userId", auth: authProject, role: accounts.RoleAdmin, handle: s.updateMember},
		{method: "DELETE", path: "/projects/:id/members/:userId", auth: authProject, role: accounts.RoleAdmin, handle: s.removeMember},
		{method: "GET", path: "/users/@me/projects/:id/security", auth: authProject, role: accounts.RoleMember, handle: s.security},
		{method: "GET", path: "/projects/:id/security", auth: authProject, role: accounts.RoleMember, handle: s.security},
		{method: "GET", path: "/projects/:id/setup-state", auth: authProject, role: accounts.RoleMember, handle: s.setupState},

		// Safe defaults (hardening round three): invitations of emails with
		// no account, and the sandbox's mailbox (404 unless --sandbox)
		{method: "GET", path: "/projects/:id/invitations", auth: authProject, role: accounts.RoleMember, handle: s.listInvitations},
		{method: "DELETE", path: "/projects/:id/invitations/:email", auth: authProject, role: accounts.RoleAdmin, handle: s.withdrawInvitation},
		{method: "GET", path: "/sandbox/messages", auth: authSecret, handle: s.listSandboxMessages},
		{method: "GET", path: "/sandbox/messages/:id", auth: authSecret, handle: s.getSandboxMessage},
		{method: "GET", path: "/sandbox/messages/:id/view", auth: authUser, handle: s.viewSandboxMessage},

		// Accounts: billing without a payment provider
		{method: "GET", path: "/users/@me/projects/:id/billing-limits", auth: authProject, role: accounts.RoleMember, handle: s.billingLimits},
		{method: "PUT", path: "/users/@me/projects/:id/billing-limits", auth: authProject, role: accounts.RoleAdmin, handle: s.setBillingLimits},
		{method: "GET", path: "/users/@me/projects/:id/billing-consumption", auth: authProject, role: accounts.RoleMember, handle: s.billingConsumption},
		{method: "POST", path: "/users/@me/projects/:id/checkout", auth: authNone, handle: s.billingDisabled},
		{method: "POST", path: "/users/@me/projects/:id/billing-portal", auth: authNone, handle: s.billingDisabled},
		{method: "GET", path: "/users/@me/projects/:id/billing-invoices", auth: authNone, handle: s.billingDisabled},
		{method: "POST", path: "/webhooks/incoming/payments", auth: authNone, handle: s.billingDisabled},

		// Uploads: stored in the database, served to anyone
		{method: "POST", path: "/uploads/image", auth: authSecret, handle: s.uploadImage, maxBody: maxUploadBody},
		{method: "GET", path: "/uploads/:name", auth: authNone, handle: s.serveUpload},

		// Workflows
		{method: "GET", path: "/workflows", auth: authSecret, handle: s.listWorkflows},
		{method: "POST", path: "/workflows", auth: authSecret, handle: s.createWorkflow},
		{method: "GET", path: "/workflows/fields", auth: authSecret, handle: s.workflowFields},
		{method: "GET", path: "/workflows/:id", auth: authSecret, handle: s.getWorkflow},
		{method: "PATCH", path: "/workflows/:id", auth: authSecret, handle: s.updateWorkflow},
		{method: "DELETE", path: "/workflows/:id", auth: authSecret, handle: s.deleteWorkflow},
		{method: "POST", path: "/workflows/:id/steps", auth: authSecret, handle: s.addStep},
		{method: "PATCH", path: "/workflows/:id/steps/:stepId", auth: authSecret, handle: s.updateStep},
		{method: "DELETE", path: "/workflows/:id/steps/:stepId", auth: authSecret, handle: s.deleteStep},
		{method: "POST", path: "/workflows/:id/transitions", auth: authSecret, handle: s.addTransition},
		{method: "DELETE", path: "/workflows/:id/transitions/:transitionId", auth: authSecret, handle: s.deleteTransition},
		{method: "POST", path: "/workflows/:id/executions", auth: authSecret, handle: s.startExecution},
		{method: "GET", path: "/workflows/:id/executions", auth: authSecret, handle: s.listExecutions},
		{method: "POST", path: "/workflows/:id/executions/cancel-all", auth: authSecret, handle: s.cancelAllExecutions},
		{method: "GET", path: "/workflows/:id/executions/:executionId", auth: authSecret, handle: s.getExecution},
		{method: "DELETE", path: "/workflows/:id/executions/:executionId", auth: authSecret, handle: s.cancelExecution},
	}
}
