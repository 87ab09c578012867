package workflow

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"syscall"
	"time"

	"github.com/heraldmail/herald/app/jsondata"
	"github.com/heraldmail/herald/app/render"
	"github.com/heraldmail/herald/queue"
	"github.com/heraldmail/herald/storage"
)

// WebhookOptions configure the WEBHOOK step's HTTP client.
type WebhookOptions struct {
	RetryBase    time.Duration // HERALD_WEBHOOK_RETRY_BASE: retries after ×1, 2, 4, 8; default 30s
	AllowPrivate bool          // HERALD_WEBHOOK_ALLOW_PRIVATE: allow loopback, private and other internal addresses
	Resolver     IPResolver    // host lookups (HERALD_DNS_SERVER); default the system's
	Timeout      time.Duration // per attempt; default 10s
}

// IPResolver looks up a host's addresses; *resolver.Client is one.
type IPResolver interface {
	IPs(ctx context.Context, host string) ([]netip.Addr, error)
}

func (o WebhookOptions) withDefaults() WebhookOptions {
	if o.RetryBase <= 0 {
		o.RetryBase = 30 * time.Second
	}
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return o
}

// Webhook limits.
const (
	webhookAttempts     = 5
	webhookResponseKeep = 16 << 10
)

// WebhookRetry is the webhook job's retry policy: after RetryBase ×1, 2,
// 4, 8.
func WebhookRetry(o WebhookOptions) queue.Retry {
	o = o.withDefaults()
	return queue.Retry{MaxAttempts: webhookAttempts, Backoff: queue.ExponentialBackoff(o.RetryBase, 8*o.RetryBase)}
}

// blockedAddrError is the SSRF guard's refusal.
type blockedAddrError struct {
	host string
	addr netip.Addr
}

func (e *blockedAddrError) Error() string {
	return fmt.Sprintf("Webhook refused: %s resolves to %s, a %s address; set HERALD_WEBHOOK_ALLOW_PRIVATE=true to allow internal addresses",
		e.host, e.addr, addrClass(e.addr))
}

var cgnat = netip.MustParsePrefix("100.64.0.0/10")

// addrClass names why an address is internal, or "" when it is public.
func addrClass(ip netip.Addr) string {
	ip = ip.Unmap()
	switch {
	case ip.IsLoopback():
		return "loopback"
	case ip.IsPrivate():
		return "private"
	case ip.IsLinkLocalUnicast(), ip.IsLinkLocalMulticast():
		return "link-local"
	case cgnat.Contains(ip):
		return "CGNAT"
	case ip.IsMulticast(), ip.IsInterfaceLocalMulticast():
		return "multicast"
	case ip.IsUnspecified():
		return "unspecified"
	}
	return ""
}

// webhookClient is an HTTP client whose every connection goes to an
// address resolved by the injected resolver and checked by the dialer's
// Control on the address actually dialled, so neither a name resolving
// to 127.0.0.1 nor one whose answer changes between a check and the
// connection gets through. It follows no redirects.
func (en *Service) webhookClient() *http.Client {
	o := en.webhooks
	check := func(host string) func(network, address string, _ syscall.RawConn) error {
		return func(network, address string, _ syscall.RawConn) error {
			ap, err := netip.ParseAddrPort(address)
			if err != nil {
				return err
			}
			if !o.AllowPrivate && addrClass(ap.Addr()) != "" {
				return &blockedAddrError{host: host, addr: ap.Addr()}
			}
			return nil
		}
	}
	dial := func(ctx context.Context, network, address string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(address)
		if err != nil {
			return nil, err
		}
		var addrs []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			addrs = []netip.Addr{ip}
		} else if o.Resolver != nil {
			addrs, err = o.Resolver.IPs(ctx, host)
			if err != nil {
				return nil, fmt.Errorf("resolve %s: %w", host, err)
			}
		} else {
			addrs, err = net.DefaultResolver.LookupNetIP(ctx, "ip", host)
			if err != nil {
				return nil, err
			}
		}
		if len(addrs) == 0 {
			return nil, fmt.Errorf("resolve %s: no addresses", host)
		}
		d := net.Dialer{Timeout: o.Timeout, Control: check(host)}
		var last error
		for _, ip := range addrs {
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			var blocked *blockedAddrError
			if errors.As(err, &blocked) {
				return nil, blocked
			}
			last = err
		}
		return nil, last
	}
	return &http.Client{
		Timeout:       o.Timeout,
		Transport:     &http.Transport{DialContext: dial, Proxy: nil, MaxIdleConnsPerHost: 4, IdleConnTimeout: 30 * time.Second},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// webhookResult is a WEBHOOK step's outcome, handed to its write.
type webhookResult struct {
	stepExecID string
	output     map[string]any
	failure    string
}

// webhookRequest is a rendered WEBHOOK step.
type webhookRequest struct {
	URL     string            `json:"url"`
	Method  string            `json:"method"`
	Headers map[string]string `json:"headers"`
	Body    []byte            `json:"body"`
}

// RunWebhook makes one attempt of a WEBHOOK step. A 2xx ends the
// step in the write that records it; anything else is retried by the
// queue (RetryBase ×1, 2, 4, 8) and the give-up fails the step; a refused
// address fails it at once with no attempt made.
func (en *Service) RunWebhook(ctx context.Context, job *queue.RunningJob) (any, error) {
	var p webhookPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil, queue.Permanent(err)
	}
	r := en.db.Reader()
	se, err := storage.StepExecByID(ctx, r, p.StepExecutionID)
	if errors.Is(err, storage.ErrNotFound) {
		return nil, nil
	}
	if err != nil || se.Status != storage.StepRunning {
		return nil, err
	}
	x, err := storage.ExecutionByIDAny(ctx, r, p.ExecutionID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && !x.Active()) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	// The request is built once and kept in the job's checkpoint: a retry
	// sends the same body, signed afresh.
	var req webhookRequest
	var failure string
	if len(job.Checkpoint) == 0 || json.Unmarshal(job.Checkpoint, &req) != nil || req.URL == "" {
		if req, failure, err = en.buildWebhook(ctx, x, se); err != nil {
			return nil, err
		}
		if failure == "" {
			if err := job.Progress(ctx, 0, req); err != nil {
				return nil, err
			}
		}
	}
	res := &webhookResult{stepExecID: se.ID}
	if failure != "" {
		res.failure = failure
		return nil, en.recordWebhook(ctx, x, res)
	}
	out := map[string]any{"url": req.URL, "method": req.Method, "statusCode": nil, "attempts": job.Attempts, "response": nil}
	res.output = out
	status, body, err := en.callWebhook(ctx, x.ProjectID, req)
	var blocked *blockedAddrError
	switch {
	case errors.As(err, &blocked):
		out["attempts"] = 0
		res.failure = blocked.Error()
		return nil, en.recordWebhook(ctx, x, res)
	case err != nil:
		out["response"] = err.Error()
		return nil, en.noteWebhookAttempt(ctx, se, out, fmt.Errorf("webhook call failed: %w", err))
	}
	out["statusCode"], out["response"] = status, body
	if status < 200 || status > 299 {
		return nil, en.noteWebhookAttempt(ctx, se, out, fmt.Errorf("webhook answered HTTP %d", status))
	}
	return nil, en.recordWebhook(ctx, x, res)
}

// recordWebhook ends the step and moves the execution on, if the step is
// still the open one.
func (en *Service) recordWebhook(ctx context.Context, x storage.Execution, res *webhookResult) error {
	return en.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := storage.ExecutionByIDAny(ctx, tx, x.ID)
		if err != nil || !cur.Active() {
			return err
		}
		w, err := storage.WorkflowByID(ctx, tx, cur.ProjectID, cur.WorkflowID)
		if err != nil {
			return err
		}
		return en.advance(ctx, tx, newRun(w, &cur, nil), stepInput{hook: res})
	})
}

// noteWebhookAttempt keeps a failed attempt's answer in the step's output,
// for the give-up to report, and returns cause for the queue to retry.
func (en *Service) noteWebhookAttempt(ctx context.Context, se storage.StepExecution, out map[string]any, cause error) error {
	err := en.db.Write(ctx, func(tx *storage.Tx) error {
		cur, err := storage.StepExecByID(ctx, tx, se.ID)
		if err != nil || cur.Status != storage.StepRunning {
			return err
		}
		cur.Output, _ = json.Marshal(out)
		return tx.SaveStepExec(ctx, cur)
	})
	if err != nil {
		return err
	}
	return cause
}

// GiveUpWebhook fails the step and its execution after the last attempt.
func (en *Service) GiveUpWebhook(ctx context.Context, tx *storage.Tx, job storage.Job, cause error) error {
	var p webhookPayload
	if err := json.Unmarshal(job.Payload, &p); err != nil {
		return nil
	}
	se, err := storage.StepExecByID(ctx, tx, p.StepExecutionID)
	if errors.Is(err, storage.ErrNotFound) || (err == nil && se.Status != storage.StepRunning) {
		return nil
	}
	if err != nil {
		return err
	}
	x, err := storage.ExecutionByIDAny(ctx, tx, p.ExecutionID)
	if err != nil || !x.Active() {
		return nil
	}
	w, err := storage.WorkflowByID(ctx, tx, x.ProjectID, x.WorkflowID)
	if err != nil {
		return err
	}
	out := map[string]any{}
	_ = json.Unmarshal(se.Output, &out)
	out["attempts"] = job.MaxAttempts
	msg := fmt.Sprintf("Webhook failed after %d attempts: %v", job.MaxAttempts, cause)
	return en.advance(ctx, tx, newRun(w, &x, nil), stepInput{hook: &webhookResult{stepExecID: se.ID, output: out, failure: msg}})
}

// callWebhook sends a signed request and reads at most 16 KiB of answer.
func (en *Service) callWebhook(ctx context.Context, projectID string, req webhookRequest) (int, any, error) {
	p, err := storage.ProjectByID(ctx, en.db.Reader(), projectID)
	if err != nil {
		return 0, nil, err
	}
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(ctx, req.Method, req.URL, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range req.Headers {
		hr.Header.Set(k, v)
	}
	if req.Body != nil && hr.Header.Get("Content-Type") == "" {
		hr.Header.Set("Content-Type", "application/json")
	}
	hr.Header.Set("User-Agent", "Herald-Webhook/1")
	t := strconv.FormatInt(en.clock.Now().Unix(), 10)
	mac := hmac.New(sha256.New, []byte(p.Secret))
	mac.Write([]byte(t + "."))
	mac.Write(req.Body)
	hr.Header.Set("X-Herald-Signature", "t="+t+",v1="+hex.EncodeToString(mac.Sum(nil)))
	resp, err := en.webhookClient().Do(hr)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(io.LimitReader(resp.Body, webhookResponseKeep))
	var parsed any
	if json.Valid(raw) && len(raw) < webhookResponseKeep {
		_ = json.Unmarshal(raw, &parsed)
		return resp.StatusCode, parsed, nil
	}
	return resp.StatusCode, string(raw), nil
}

// buildWebhook renders a step's url, header values and body strings with
// the contact's data and the execution's context (event.<key>). The body
// is the same on every attempt: it is made from rows that the step does
// not change.
func (en *Service) buildWebhook(ctx context.Context, x storage.Execution, se storage.StepExecution) (webhookRequest, string, error) {
	r := en.db.Reader()
	st, err := storage.StepByID(ctx, r, se.StepID)
	if errors.Is(err, storage.ErrNotFound) {
		return webhookRequest{}, "The step was deleted before its webhook was called", nil
	}
	if err != nil {
		return webhookRequest{}, "", err
	}
	var c WebhookConfig
	_ = json.Unmarshal(st.Config, &c)
	contact, err := storage.ContactByID(ctx, r, x.ProjectID, x.ContactID)
	if errors.Is(err, storage.ErrNotFound) {
		return webhookRequest{}, "Contact " + x.ContactID + " was deleted", nil
	}
	if err != nil {
		return webhookRequest{}, "", err
	}
	w, err := storage.WorkflowByID(ctx, r, x.ProjectID, x.WorkflowID)
	if err != nil {
		return webhookRequest{}, "", err
	}
	data, _ := jsondata.Decode(contact.Data)
	event, _ := jsondata.Decode(x.Context)
	if data == nil {
		data = map[string]any{}
	}
	if event == nil {
		event = map[string]any{}
	}
	vars := map[string]any{}
	for k, v := range data {
		vars[k] = v
	}
	vars["id"], vars["email"], vars["subscribed"], vars["data"] = contact.ID, contact.Email, contact.Subscribed, data
	vars["event"] = event
	vars["contact"] = map[string]any{"id": contact.ID, "email": contact.Email, "subscribed": contact.Subscribed, "data": data}
	renderStr := func(s string) (string, error) { return en.renderer.Render(ctx, s, vars, render.Text) }
	req := webhookRequest{Method: c.Method, Headers: map[string]string{}}
	if req.Method == "" {
		req.Method = http.MethodPost
	}
	if req.URL, err = renderStr(c.URL); err != nil {
		return req, "The webhook URL could not be rendered: " + err.Error(), nil
	}
	for k, v := range c.Headers {
		if req.Headers[k], err = renderStr(v); err != nil {
			return req, "The webhook header " + k + " could not be rendered: " + err.Error(), nil
		}
	}
	if req.Method == http.MethodGet {
		return req, "", nil
	}
	var body any = map[string]any{
		"contact":   vars["contact"],
		"workflow":  map[string]any{"id": w.ID, "name": w.Name},
		"execution": map[string]any{"id": x.ID, "startedAt": x.StartedAt},
		"event":     event,
	}
	if c.Body != nil {
		if body, err = renderBody(c.Body, renderStr); err != nil {
			return req, "The webhook body could not be rendered: " + err.Error(), nil
		}
	}
	req.Body, err = json.Marshal(body)
	return req, "", err
}

// renderBody renders every string of a JSON value.
func renderBody(v any, render func(string) (string, error)) (any, error) {
	switch x := v.(type) {
	case string:
		return render(x)
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			r, err := renderBody(e, render)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			r, err := renderBody(e, render)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}
