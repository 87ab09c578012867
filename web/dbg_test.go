package web_test
import ("testing";"time";"fmt";"strings";"github.com/heraldmail/herald/web/webtest")
func TestDbgImport(t *testing.T){
	e := webtest.New(t, webtest.Options{})
	var b strings.Builder
	b.WriteString("email\n")
	for i := 0; b.Len() < 5<<20-40; i++ { fmt.Fprintf(&b, "c%07d@example.com\n", i) }
	start := time.Now()
	id := jobID(t, upload(t, e, "file", b.String()))
	var st map[string]any; for { st = e.Secret("GET", "/contacts/import/"+id, nil).JSON(); if st["state"]=="completed"||st["state"]=="failed" {break}; time.Sleep(200*time.Millisecond) }
	t.Log(time.Since(start), st["state"], st["result"].(map[string]any)["created"])
}
