// Package workflow is the workflow engine: it moves executions through
// their steps. It owns
//
//   - the model the engine reads: step and trigger types, the typed step
//     configs, a workflow's graph (model.go);
//   - the table of event names each project's workflows want, and the
//     inbox hand-off inside the write that records an event
//     (triggers.go, NoteEvents);
//   - the engine's jobs: enrolment from the inbox, the run of due
//     executions in batches with their gathered writes, the timer
//     (engine.go, batch.go), and the WEBHOOK step's job and SSRF-guarded
//     client (webhook.go);
//   - the state machine of executions and step executions (run.go) and
//     the steps that act on the contact alone (local.go);
//   - starting an execution by hand and cancelling one (Start, Cancel).
//
// It needs little of the rest of the domain, and asks for it through
// Host: preparing and queueing a SEND_EMAIL step's email (the send
// path), the contact data rules and the subscription events of an
// UPDATE_CONTACT step, and the job queue. It reads and writes its own
// rows through storage and keeps the time of the injected clock.
//
// app builds the Engine (app.New), lists its job kinds in app's one table
// (app/job_kinds.go), and keeps what the API calls: editing and checking
// graphs and step configs, listing executions, and thin methods that
// hand events (noteEvents) and changes (workflowChanged) to the engine.
// The package imports neither app nor web.
package workflow
