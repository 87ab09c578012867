package app_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"github.com/heraldmail/herald/storage"
)

// BenchmarkEventInsert is the event's statements alone, as /v1/track
// (InsertEvent) and an open or a click (InsertContactEvent) run them: 500
// events per transaction, so that the commit is little per event, cycling
// over 5,000 contacts with one name as the track benchmarks do (after the
// first round every event is a repeat of its contact and name). cpu-µs/op
// is per event, commit included; it is the A/B measure of an event's SQL
// (docs/performance.md, "The recorded event's SQL, fifth pass").
func BenchmarkEventInsert(b *testing.B) {
	inserts := map[string]func(ctx context.Context, tx *storage.Tx, e storage.Event) error{
		"InsertEvent": func(ctx context.Context, tx *storage.Tx, e storage.Event) error { return tx.InsertEvent(ctx, e) },
		"InsertContactEvent": func(ctx context.Context, tx *storage.Tx, e storage.Event) error {
			if ok, err := tx.InsertContactEvent(ctx, e); !ok || err != nil {
				return fmt.Errorf("event not stored (%v)", err)
			}
			return nil
		},
	}
	for _, name := range []string{"InsertEvent", "InsertContactEvent"} {
		b.Run(name, func(b *testing.B) { benchmarkEventInsert(b, inserts[name]) })
	}
}

func benchmarkEventInsert(b *testing.B, insert func(ctx context.Context, tx *storage.Tx, e storage.Event) error) {
	ctx := context.Background()
	db, projectID, contacts := eventBenchContacts(b, 5000)
	data := json.RawMessage(`{"plan":"pro","visits":7,"path":"/pricing"}`)
	at := time.Unix(1_800_000_000, 0)
	b.ResetTimer()
	cpu0 := processCPU()
	for start := 0; start < b.N; start += 500 {
		err := db.Write(ctx, func(tx *storage.Tx) error {
			for i := start; i < min(start+500, b.N); i++ {
				e := storage.Event{ID: fmt.Sprintf("%08d-0000-7000-8000-000000000000", i), ProjectID: projectID,
					ContactID: contacts[i%len(contacts)], Name: "page-viewed", Data: data, CreatedAt: at}
				if err := insert(ctx, tx, e); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/op")
}

// eventBenchContacts is a fresh database with one project and n contacts.
func eventBenchContacts(b *testing.B, n int) (*storage.DB, string, []string) {
	b.Helper()
	ctx := context.Background()
	db, err := storage.Open(ctx, b.TempDir(), storage.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { db.Close() })
	now := time.Unix(1_800_000_000, 0)
	projectID := "00000000-0000-7000-8000-00000000000p"
	contacts := make([]string, n)
	err = db.Write(ctx, func(tx *storage.Tx) error {
		if err := tx.InsertProject(ctx, storage.Project{ID: projectID, Name: "bench", Public: "pk_bench", Secret: "sk_bench",
			CreatedAt: now, UpdatedAt: now}); err != nil {
			return err
		}
		for i := range contacts {
			contacts[i] = fmt.Sprintf("%08d-0000-7000-8000-00000000000c", i)
			if err := tx.InsertContact(ctx, storage.Contact{ID: contacts[i], ProjectID: projectID,
				Email: fmt.Sprintf("user%d@example.com", i), Subscribed: true, Data: json.RawMessage(`{}`),
				CreatedAt: now, UpdatedAt: now}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return db, projectID, contacts
}
