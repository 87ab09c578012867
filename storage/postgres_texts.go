package storage

// postgresTexts is the dialect table: the PostgreSQL text of every
// statement whose SQLite text PostgreSQL cannot run once its placeholders
// are renumbered, keyed by the SQLite text. Both are constants next to
// the statement's function (name…SQL and name…PG), so the two cannot
// drift apart unseen. Entries may use SQLite's placeholders (?, ?N): they
// are renumbered like any text (so no jsonb ? operator: jsonb_exists).
// The statements built at run time (the condition engine's, the bitmaps')
// pick their text where they are built (engineOf).
//
// It is built once per DB, at Open, and only read afterwards.
func postgresTexts() map[string]string {
	return map[string]string{
		addSegmentMembersSQL:     addSegmentMembersPG,
		claimQueuedEmailSQL:      claimQueuedEmailPG,
		claimQueuedEmailsSQL:     claimQueuedEmailsPG,
		contactFieldStatsSQL:     contactFieldStatsPG,
		contactFieldValuesSQL:    contactFieldValuesPG,
		deleteContactFieldSQL:    deleteContactFieldPG,
		engineExecutionsByIDsSQL: engineExecutionsByIDsPG,
		finishJobSQL:             finishJobPG,
		hasWorkflowsEnabledSQL:   hasWorkflowsEnabledPG,
		insertEventsSQL:          insertEventsPG,
		nextJobTimeSQL:           nextJobTimePG,
		projectTablesSQL:         projectTablesPG,
		undoAttemptSQL:           undoAttemptPG,
	}
}

// A fragment is a piece that statements share (a column list), with its
// PostgreSQL text: every statement holding it gets it replaced, whichever
// of them it is and however it was built.
type fragment struct{ lite, pg string }

// postgresFragments lists the fragments of the dialect.
func postgresFragments() []fragment {
	return []fragment{
		{executionColumns, executionColumnsPG},
		{`s.config ->> 'eventName'`, `(s.config::json ->> 'eventName')`},
		{flushExecutionsHead + flushExecutionsRow, flushExecutionsHead + flushExecutionsRowPG},
		{flushContactDataHead + flushContactDataRow, flushContactDataHead + flushContactDataRowPG},
		{flushContactSubscriptionHead + flushContactSubscriptionRow, flushContactSubscriptionHead + flushContactSubscriptionRowPG},
	}
}
