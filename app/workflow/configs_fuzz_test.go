package workflow

import (
	"context"
	"encoding/json"
	"testing"
)

// FuzzStepConfig feeds step configs, as clients send them, to the
// validation of every step type that needs no database, and the values
// it accepts to the engine's condition matcher: neither may panic, and an
// accepted config must read back.
func FuzzStepConfig(f *testing.F) {
	for _, s := range []string{`{}`, `null`, `[]`, `{"amount":1,"unit":"days"}`, `{"eventName":"x","timeout":60}`,
		`{"field":"data.plan","operator":"equals","value":"pro"}`,
		`{"mode":"multi","field":"email","branches":[{"id":"a","operator":"contains","value":"x"}]}`,
		`{"url":"https://example.com/{{email}}","method":"put","headers":{"A":"b"},"body":{"k":["{{event.x}}",1]}}`,
		`{"updates":{"a":null,"b":{"value":1,"persistent":false}},"subscriptionAction":"subscribe"}`, `{"reason":7}`} {
		f.Add(s)
	}
	en := New(Options{})
	f.Fuzz(func(t *testing.T, raw string) {
		for _, typ := range []string{StepDelay, StepWaitForEvent, StepCondition, StepWebhook, StepUpdateContact, StepExit} {
			out, _, err := en.checkStepConfig(context.Background(), nil, "p", typ, json.RawMessage(raw), nil)
			if err != nil {
				continue
			}
			if !json.Valid(out) {
				t.Fatalf("%s: accepted config is not JSON: %s", typ, out)
			}
			if typ == StepCondition {
				var c ConditionConfig
				if err := json.Unmarshal(out, &c); err != nil {
					t.Fatalf("condition does not read back: %v", err)
				}
				for _, v := range []any{nil, "", "pro", json.Number("3"), true, 2.5, map[string]any{"a": 1}} {
					MatchCondition(v, c.Operator, c.Value)
					for _, b := range c.Branches {
						MatchCondition(v, b.Operator, b.Value)
					}
				}
			}
		}
	})
}
