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
//     the steps that act on the contact alone (local.go);
//   - the fields a CONDITION step can test (fields.go) and the
//     preparation of a SEND_EMAIL step's email from a read, outside the
//     write lock (mail_prepare.go).
//
// It imports audience (the contact data rules, subscription events),
// senders and messaging (the send path) directly: it stands above them in
// the domain order. It reads and writes its own rows through storage,
// keeps the time of the injected clock, and answers with app/apierr's
// errors and app/paging's pages.
//
// app builds the Service (app.New), lists its job kinds in app's one
// table (app/job_kinds.go), and subscribes NoteEvents to every recorded
// event (package event). web calls its methods directly.
package workflow
