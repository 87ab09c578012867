package web_test

import (
	"bytes"
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-msgauth/dkim"
	"github.com/emersion/go-smtp"

	"github.com/heraldmail/herald/web/webtest"
)

// The sending benchmarks (bench/send.sh prints their ratios):
//   - BenchmarkDeliveryQueued: already queued, signed 10 KB messages
//     delivered into a local go-smtp sink by the delivery lane, against
//     BenchmarkRawSMTPClient sending the same bytes over as many
//     connections (3: smtpout's default per destination domain).
//   - BenchmarkSendEndToEnd: POST /v1/send (one recipient, 10 KB HTML,
//     RSA-2048 DKIM) until the sink has every message, against
//     BenchmarkMsgauthSignAllCores, go-msgauth alone signing that message on
//     all cores: RSA signing is the physical limit of this path.
//   - BenchmarkSendAccepted: accepted /v1/send requests per second and p99
//     latency at 64 concurrent clients, delivery paused.

// tenKBHTML is a 10 KB HTML body with a few variables and links.
func tenKBHTML() string {
	var b strings.Builder
	b.WriteString("<html><body><h1>Hello {{name ?? \"there\"}}</h1>")
	for b.Len() < 10<<10 {
		b.WriteString(`<p>Herald news for {{email}}: lorem ipsum dolor sit amet, consectetur adipiscing elit. ` +
			`<a href="https://example.com/articles/42">Read more</a></p>`)
	}
	b.WriteString("</body></html>")
	return b.String()
}

func sendBenchEnv(b testing.TB, workers bool) *webtest.Env {
	e := webtest.New(b, webtest.Options{RateLimit: 1 << 30, NoWorkers: !workers})
	verifiedDomain(b, e, "herald.test")
	e.RouteMail("example.net")
	return e
}

// reportRate reports messages per second since start, and the process's
// CPU time per message since cpu0.
func reportRate(b *testing.B, start time.Time, cpu0 time.Duration) {
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "msg/s")
	b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N)/1e3, "cpu-µs/msg")
	b.ReportMetric(float64(peakRSS())/(1<<20), "peak-MB")
}

func sendBody(i int, html string) map[string]any {
	return map[string]any{"to": fmt.Sprintf("user%d@example.net", i), "from": "news@herald.test",
		"subject": "News {{name ?? \"\"}}", "body": html, "data": map[string]any{"name": "Ada"}}
}

// sendBodyBytes returns the JSON of sendBody(i, html) for any i, byte for
// byte, without marshalling it again: the benchmark's own client is not
// Herald, and its json.Marshal of 10 KB of HTML was charged to Herald's
// CPU per message (bodies made before the timer would grow the peak RSS
// that the benchmark also reports).
func sendBodyBytes(b testing.TB, html string) func(i int) []byte {
	whole := string(jsonBytes(sendBody(0, html)))
	to := string(jsonBytes(fmt.Sprintf("user%d@example.net", 0)))
	before, after, ok := strings.Cut(whole, to)
	if !ok || strings.Contains(after, to) {
		b.Fatalf("the recipient is not once in %q", whole)
	}
	body := func(i int) []byte {
		out := make([]byte, 0, len(whole)+20)
		out = append(out, before...)
		out = fmt.Appendf(out, `"user%d@example.net"`, i)
		return append(out, after...)
	}
	for _, i := range []int{1, 123456} {
		if got, want := body(i), jsonBytes(sendBody(i, html)); !bytes.Equal(got, want) {
			b.Fatalf("body %d:\n%s\nwant\n%s", i, got, want)
		}
	}
	return body
}

func BenchmarkDeliveryQueued(b *testing.B) {
	e := sendBenchEnv(b, false)
	e.Sink.DiscardData()
	html := tenKBHTML()
	for i := 0; i < b.N; i++ {
		if r := e.Secret("POST", "/v1/send", sendBody(i, html)); r.Status != 200 {
			b.Fatalf("send: %d %s", r.Status, r.Body)
		}
	}
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	probe := startProbe(e)
	e.StartWorkers()
	if got := e.Sink.WaitCount(b.N, 5*time.Minute); got != b.N {
		b.Fatalf("delivered %d of %d", got, b.N)
	}
	probe.stop(b, b.N)
	reportRate(b, start, cpu0)
}

func BenchmarkRawSMTPClient(b *testing.B) {
	e := sendBenchEnv(b, true)
	if r := e.Secret("POST", "/v1/send", sendBody(0, tenKBHTML())); r.Status != 200 {
		b.Fatal(string(r.Body))
	}
	msg := e.Sink.Wait(1, 10*time.Second)[0]
	e.Sink.DiscardData()
	const conns = 3
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	probe := startProbe(e)
	var wg sync.WaitGroup
	for c := 0; c < conns; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			cl, err := smtp.Dial(e.Sink.Addr)
			if err != nil {
				b.Error(err)
				return
			}
			defer cl.Quit()
			for i := c; i < b.N; i += conns {
				if err := cl.SendMail(msg.From, msg.To, bytes.NewReader(msg.Data)); err != nil {
					b.Error(err)
					return
				}
			}
		}(c)
	}
	wg.Wait()
	if got := e.Sink.WaitCount(b.N+1, time.Minute); got != b.N+1 {
		b.Fatalf("sink has %d of %d", got, b.N+1)
	}
	probe.stop(b, b.N)
	reportRate(b, start, cpu0)
}

func BenchmarkSendEndToEnd(b *testing.B) {
	e := sendBenchEnv(b, true)
	e.Sink.DiscardData()
	body := sendBodyBytes(b, tenKBHTML())
	client := benchClient()
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	probe := startProbe(e)
	var wg sync.WaitGroup
	next := make(chan int)
	for c := 0; c < 16; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if status := doPOST(client, e.Server.URL+"/v1/send", e.Project.Secret, body(i)); status != 200 {
					b.Errorf("send: %d", status)
				}
			}
		}()
	}
	for i := 0; i < b.N; i++ {
		next <- i
	}
	close(next)
	wg.Wait()
	if got := e.Sink.WaitCount(b.N, 5*time.Minute); got != b.N {
		b.Fatalf("delivered %d of %d", got, b.N)
	}
	probe.stop(b, b.N)
	reportRate(b, start, cpu0)
}

func BenchmarkMsgauthSignAllCores(b *testing.B) {
	e := sendBenchEnv(b, true)
	if r := e.Secret("POST", "/v1/send", sendBody(0, tenKBHTML())); r.Status != 200 {
		b.Fatal(string(r.Body))
	}
	raw := e.Sink.Wait(1, 10*time.Second)[0].Data
	key, _ := rsa.GenerateKey(rand.Reader, 2048)
	opts := &dkim.SignOptions{Domain: "herald.test", Selector: "bench", Signer: key, Hash: crypto.SHA256,
		HeaderCanonicalization: dkim.CanonicalizationRelaxed, BodyCanonicalization: dkim.CanonicalizationRelaxed}
	b.ResetTimer()
	start, cpu0 := time.Now(), processCPU()
	probe := startProbe(e)
	b.RunParallel(func(pb *testing.PB) {
		var out bytes.Buffer
		for pb.Next() {
			out.Reset()
			if err := dkim.Sign(&out, bytes.NewReader(raw), opts); err != nil {
				b.Error(err)
			}
		}
	})
	probe.stop(b, b.N)
	reportRate(b, start, cpu0)
}

func BenchmarkSendAccepted(b *testing.B) {
	e := sendBenchEnv(b, false)
	html := tenKBHTML()
	loadPOST(b, e, "/v1/send", e.Project.Secret, func(i int64) any { return sendBody(int(i), html) })
}
