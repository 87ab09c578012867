package app_test

import (
	"bufio"
	"bytes"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/heraldmail/herald"

// The domain order (docs/architecture.md): a package may import only
// packages of a lower rank. Packages of one rank do not import each other.
// The test harnesses rank just above what they build.
var layerRank = map[string]int{
	"app/event":     10,
	"app/accounts":  20,
	"app/audience":  30,
	"app/senders":   30,
	"app/tracking":  40,
	"app/sandbox":   40,
	"app/messaging": 50,
	"app/campaigns": 60,
	"app/workflow":  60,
	"app/notify":    60,
	"app/insights":  70,
	"app":           80,
	"app/apptest":   85,
	"web":           90,
	"web/webtest":   95,
	"cli":           100,
	"":              110, // main
}

// infrastructure never imports the domain, the HTTP layer or the CLI.
var infrastructure = []string{"storage", "queue", "smtpout", "smtpin", "dkim", "resolver", "metrics", "clock"}

// TestPackagesImportInOrder reads every package's imports (go list) and
// checks the order above, so that it cannot drift: the leaves of app
// (apierr, paging, message, render, ...) import no ranked package, and
// the infrastructure none of app, web or cli.
func TestPackagesImportInOrder(t *testing.T) {
	out, err := exec.Command("go", "list", "-f", "{{.ImportPath}}{{range .Imports}} {{.}}{{end}}", module+"/...").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		pkg := rel(fields[0])
		for _, imp := range fields[1:] {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if msg := forbidden(pkg, rel(imp)); msg != "" {
				t.Errorf("%s imports %s: %s", fields[0], imp, msg)
			}
		}
	}
}

func rel(path string) string { return strings.TrimPrefix(strings.TrimPrefix(path, module), "/") }

// rankOf is the rank of a package or of the domain package it lies in
// (app/workflow/x is app/workflow's); 0 for a leaf (app's and web's other
// sub-packages: apierr, paging, message, render, web/dashboard, ...).
func rankOf(pkg string) int {
	if r, ok := layerRank[pkg]; ok {
		return r
	}
	for p := pkg; strings.Contains(p, "/"); {
		p = p[:strings.LastIndex(p, "/")]
		if r, ok := layerRank[p]; ok && strings.HasPrefix(p, "app/") {
			return r
		}
	}
	return 0
}

func forbidden(pkg, imp string) string {
	for _, infra := range infrastructure {
		if pkg == infra || strings.HasPrefix(pkg, infra+"/") {
			if imp == "app" || strings.HasPrefix(imp, "app/") || imp == "web" || strings.HasPrefix(imp, "web/") || imp == "cli" {
				return "infrastructure imports none of app, web or cli"
			}
			return ""
		}
	}
	from, to := rankOf(pkg), rankOf(imp)
	switch {
	case to == 0:
		return ""
	case from == 0:
		return "a leaf imports no ranked package"
	case to >= from:
		return "against the order event < accounts < audience, senders < tracking < messaging < campaigns, workflow, notify < insights < app < web < cli"
	}
	return ""
}

// The rule itself refuses what it must.
func TestLayerRuleRefusesImportsAgainstTheOrder(t *testing.T) {
	for _, c := range []struct {
		pkg, imp string
		refused  bool
	}{
		{"app/audience", "app/campaigns", true},
		{"app/audience", "app/senders", true}, // one rank
		{"app/campaigns", "app/audience", false},
		{"app/workflow", "app/messaging", false},
		{"app/render", "app/accounts", true}, // a leaf
		{"app/messaging", "app/render", false},
		{"storage", "app/apierr", true},
		{"web", "app/insights", false},
		{"app", "web", true},
		{"app/campaigns/x", "app/insights", true}, // inside a domain package
	} {
		if got := forbidden(c.pkg, c.imp) != ""; got != c.refused {
			t.Errorf("%s importing %s: refused %v, want %v", c.pkg, c.imp, got, c.refused)
		}
	}
}
