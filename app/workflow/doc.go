// Package workflow is Herald's workflows: the API's graphs and the engine
// that moves executions through them. It owns
//
//   - the model: step and trigger types, the typed step configs, a
//     workflow's graph (model.go);
//   - the API: creating, editing and deleting workflows, steps and
//     transitions, with the checks that keep a graph runnable
//     (workflows.go, steps.go, transitions.go, configs.go), and starting,
//     listing and cancelling executions (executions.go, operator.go);
//   - the table of event names each project's workflows want, and the
//     inbox hand-off inside the write that records an event
//     (triggers.go, NoteEvents);
//   - the engine's jobs: enrolment from the inbox, the run of due
//     executions in batches with their gathered writes, the timer
//     (engine.go, batch.go), and the WEBHOOK step's job and SSRF-guarded
//     client (webhook.go);
//   - the state machine of executions and step executions (run.go) and
//     the steps that act on the contact alone (local.go).
//
// It needs little of the rest of the domain, and asks for it through
// Host: preparing and queueing a SEND_EMAIL step's email (the send
// path), the contact data rules (applying updates, reserved keys, address
// syntax), subscription events, and the job queue. It reads and writes
// its own rows through storage, keeps the time of the injected clock, and
// answers with app/apierr's errors and app/paging's pages, as app does.
//
// app builds the Engine (app.New), lists its job kinds in app's one table
// (app/job_kinds.go), and keeps thin methods for web (app/workflows.go)
// and for every event writer (noteEvents, insertEvent). The package
// imports neither app nor web.
package workflow
