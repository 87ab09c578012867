package storage

import (
	"bytes"
	"context"
	"crypto/rand"
	"testing"
)

// A body is stored compressed when that pays, as it is otherwise, and
// read back byte for byte either way, as are bodies stored before bodies
// were compressed (codec 0).
func TestEmailBodyCodec(t *testing.T) {
	db, ctx := openTest(t), context.Background()
	if err := db.Write(ctx, insertProject("p1")); err != nil {
		t.Fatal(err)
	}
	random := make([]byte, 30<<10)
	_, _ = rand.Read(random)
	cases := []struct {
		id    string
		raw   []byte
		codec int
	}{
		{"html", bytes.Repeat([]byte("<p>Herald news: lorem ipsum =\r\ndolor sit amet</p>\r\n"), 600), codecS2},
		{"small", []byte("Subject: hi\r\n\r\nhello\r\n"), codecRaw},
		{"random", random, codecRaw},
	}
	for _, c := range cases {
		insertTestEmail(t, db, c.id, "", c.raw)
		var codec, size int
		if err := db.Reader().QueryRow(ctx, `SELECT codec, length(raw) FROM email_bodies WHERE email_id = ?`, c.id).Scan(&codec, &size); err != nil {
			t.Fatal(err)
		}
		if codec != c.codec || codec == codecS2 && size > len(c.raw)/4 {
			t.Errorf("%s: stored with codec %d in %d of %d bytes, want codec %d", c.id, codec, size, len(c.raw), c.codec)
		}
		if got := bodyOf(t, db, c.id); !bytes.Equal(got, c.raw) {
			t.Errorf("%s: body read back differs", c.id)
		}
	}
	// Packed before the write (as app does), the same bytes are stored.
	e := Email{ID: "prepacked", ProjectID: "p1", MessageID: "<prepacked@herald.test>", Sender: "a@herald.test",
		Recipient: "b@example.net", Status: EmailPending, Raw: cases[0].raw}
	e.Pack()
	if err := db.Write(ctx, func(tx *Tx) error { return tx.InsertEmail(ctx, e) }); err != nil {
		t.Fatal(err)
	}
	if got := bodyOf(t, db, "prepacked"); !bytes.Equal(got, cases[0].raw) {
		t.Error("prepacked: body read back differs")
	}
	// A row written before migration 00017 has codec 0 and raw bytes.
	insertTestEmail(t, db, "legacy", "", nil)
	if err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO email_bodies (email_id, raw) VALUES ('legacy', ?)`, cases[0].raw)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := bodyOf(t, db, "legacy"); !bytes.Equal(got, cases[0].raw) {
		t.Error("legacy: body read back differs")
	}
	// A corrupt compressed body is an error, never other bytes.
	if err := db.Write(ctx, func(tx *Tx) error {
		_, err := tx.Exec(ctx, `UPDATE email_bodies SET raw = ? WHERE email_id = 'html'`, []byte{0, 0xff, 0, 0xff})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := EmailBody(ctx, db.Reader(), "html"); err == nil {
		t.Error("a corrupt body was read without an error")
	}
}
