package cli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/spf13/pflag"
)

// runCLI runs herald's commands in-process with the given environment and
// default configuration file, returning stdout and the error.
func runCLI(t *testing.T, env map[string]string, defaultFile string, args ...string) (string, error) {
	t.Helper()
	cmd := newRootCmdWith(func(k string) (string, bool) { v, ok := env[k]; return v, ok }, defaultFile)
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

func TestBadSettingsStopEveryCommand(t *testing.T) {
	cases := []struct{ name, value, allowed string }{
		{"HERALD_DELIVERY_RETRY_BASE", "0", "more than 0"},
		{"HERALD_DELIVERY_RETRY_BASE", "-1s", "more than 0"},
		{"HERALD_IDEMPOTENCY_TTL", "0", "more than 0"},
		{"HERALD_WORKERS", "0", "1 or more"},
		{"HERALD_DELIVERY_WORKERS", "0", "1 or more"},
		{"HERALD_SMTP_PORT", "0", "1..65535"},
		{"HERALD_SMTP_PORT", "70000", "1..65535"},
		{"HERALD_RATE_LIMIT", "-5", "0 (no limit) or more"},
		{"HERALD_BASE_URL", "notaurl", "absolute http"},
		{"HERALD_BASE_URL", "ftp://x.example", "absolute http"},
		{"HERALD_BASE_URL", "https://mail.example.com/a b", "percent-encode"},
		{"HERALD_BASE_URL", "https://mail.example.com/hérald", "percent-encode"},
		{"HERALD_BASE_URL", "https://mail.example.com/" + strings.Repeat("p", 500), "at most 512 characters"},
		{"HERALD_DNS_SERVER", "1.1.1.1", "host:port"},
		{"HERALD_SMTP_RELAY", "smtp.example.com", "host:port"},
		{"HERALD_LISTEN", "8080", "host]:port"},
		{"HERALD_WORKERS", "four", "a whole number"},
		{"HERALD_SHUTDOWN_GRACE", "soon", "a duration"},
		{"HERALD_SMTP_RELAY_TLS", "maybe", "true or false"},
		{"HERALD_LOG_LEVEL", "loud", "debug, info, warn, error"},
		{"HERALD_SIGNUPS", "everyone", "first, open, invite"},
		{"HERALD_SANDBOX", "maybe", "true or false"},
	}
	dir := t.TempDir()
	for _, c := range cases {
		for _, cmd := range [][]string{{"version"}, {"project", "list"}, {"serve"}} {
			env := map[string]string{c.name: c.value, "HERALD_DATA_DIR": filepath.Join(dir, "data")}
			_, err := runCLI(t, env, "", cmd...)
			if err == nil || exitCode(err) != 2 {
				t.Fatalf("%s=%s herald %v: %v (exit %d), want exit 2", c.name, c.value, cmd, err, exitCode(err))
			}
			msg := err.Error()
			if !strings.Contains(msg, c.name) || !strings.Contains(msg, `"`+c.value+`"`) || !strings.Contains(msg, c.allowed) || strings.Contains(msg, "\n") {
				t.Fatalf("%s=%s: message %q should name the variable, the value and %q on one line", c.name, c.value, msg, c.allowed)
			}
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "data")); !os.IsNotExist(err) {
		t.Fatalf("a refused command created the data directory: %v", err)
	}
	// The command line is checked too, named as a flag.
	_, err := runCLI(t, nil, "", "serve", "--smtp-port", "0")
	if exitCode(err) != 2 || !strings.Contains(err.Error(), "--smtp-port") {
		t.Fatalf("--smtp-port 0: %v", err)
	}
	// Good values pass.
	good := map[string]string{"HERALD_SMTP_PORT": "2525", "HERALD_RATE_LIMIT": "0", "HERALD_DNS_SERVER": "[::1]:53",
		"HERALD_BASE_URL": "https://mail.example.com/herald", "HERALD_SHUTDOWN_GRACE": "0s", "HERALD_LISTEN": "127.0.0.1:0",
		"HERALD_SIGNUPS": "invite", "HERALD_SANDBOX": "true"}
	if _, err := runCLI(t, good, "", "version"); err != nil {
		t.Fatal(err)
	}
}

func TestServeHelpListsEveryVariable(t *testing.T) {
	out, err := runCLI(t, nil, "", "serve", "--help")
	if err != nil {
		t.Fatal(err)
	}
	allFlags().VisitAll(func(f *pflag.Flag) {
		name := envName(f.Name)
		var line string
		for _, l := range strings.Split(out, "\n") {
			if strings.Contains(l, "$"+name+"]") {
				line = l
			}
		}
		if !strings.Contains(line, "default") {
			t.Errorf("serve --help has no line with %s and its default: %q", name, line)
		}
	})
}

func writeFile(t *testing.T, path, text string) string {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	fileData, envData := filepath.Join(dir, "from-file"), filepath.Join(dir, "from-env")
	conf := writeFile(t, filepath.Join(dir, "herald.env"), "# comment\n\nHERALD_DATA_DIR=\""+fileData+"\"\nexport HERALD_LOG_LEVEL=debug\nGOMAXPROCS=2\n")

	// --config, HERALD_CONFIG and the default file are each read.
	for _, c := range []struct {
		env  map[string]string
		def  string
		args []string
	}{
		{nil, "", []string{"--config", conf}},
		{map[string]string{"HERALD_CONFIG": conf}, "", nil},
		{nil, conf, nil},
	} {
		os.RemoveAll(fileData)
		if _, err := runCLI(t, c.env, c.def, append([]string{"project", "create", "--name", "Acme"}, c.args...)...); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(fileData, "herald.db")); err != nil {
			t.Fatalf("%+v: the file's data directory was not used: %v", c, err)
		}
	}
	// The process environment wins over the file.
	if _, err := runCLI(t, map[string]string{"HERALD_DATA_DIR": envData}, conf, "project", "create", "--name", "Acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(envData, "herald.db")); err != nil {
		t.Fatalf("the environment's data directory was not used: %v", err)
	}
	// A bad value in the file is refused like one in the environment.
	bad := writeFile(t, filepath.Join(dir, "bad.env"), "HERALD_SMTP_PORT=0\n")
	if _, err := runCLI(t, nil, "", "--config", bad, "version"); exitCode(err) != 2 || !strings.Contains(err.Error(), "HERALD_SMTP_PORT") {
		t.Fatalf("bad file: %v", err)
	}
	typo := writeFile(t, filepath.Join(dir, "typo.env"), "HERALD_SMTP_PROT=25\n")
	if _, err := runCLI(t, nil, "", "--config", typo, "version"); exitCode(err) != 2 || !strings.Contains(err.Error(), "HERALD_SMTP_PROT") {
		t.Fatalf("unknown setting: %v", err)
	}
	// A file named but missing is an error; the default file may be absent.
	if _, err := runCLI(t, nil, "", "--config", filepath.Join(dir, "nope.env"), "version"); err == nil || !strings.Contains(err.Error(), "nope.env") {
		t.Fatalf("missing --config file: %v", err)
	}
	if _, err := runCLI(t, nil, filepath.Join(dir, "nope.env"), "version"); err != nil {
		t.Fatal(err)
	}
}

func TestReadOnlyCommandsRefuseMissingDataDir(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "mistyped")
	for _, args := range [][]string{{"project", "list"}, {"migrate", "status"}} {
		_, err := runCLI(t, map[string]string{"HERALD_DATA_DIR": missing}, "", args...)
		if err == nil || !strings.Contains(err.Error(), missing) || !strings.Contains(err.Error(), "does not exist") {
			t.Fatalf("herald %v: %v", args, err)
		}
		if _, err := os.Stat(missing); !os.IsNotExist(err) {
			t.Fatalf("herald %v created %s", args, missing)
		}
	}
	// migrate status on an empty data directory (a fresh install) lists
	// the migrations as pending and creates nothing.
	empty := t.TempDir()
	out, err := runCLI(t, map[string]string{"HERALD_DATA_DIR": empty}, "", "migrate", "status")
	if err != nil || !strings.Contains(out, "pending") {
		t.Fatalf("migrate status: %v\n%s", err, out)
	}
	if entries, _ := os.ReadDir(empty); len(entries) != 0 {
		t.Fatalf("migrate status wrote %v", entries)
	}
}

// TestDataFilesPrivateAndOwnedByDataDirOwner: the database is 0600, and
// root working on a data directory owned by another user (the packaged
// install's herald) leaves every file owned by that user.
func TestDataFilesPrivateAndOwnedByDataDirOwner(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	if err := os.Mkdir(dir, 0o750); err != nil {
		t.Fatal(err)
	}
	const nobody = 65534
	asRoot := os.Geteuid() == 0
	if asRoot {
		if err := os.Chown(dir, nobody, nobody); err != nil {
			t.Fatal(err)
		}
	}
	env := map[string]string{"HERALD_DATA_DIR": dir}
	if _, err := runCLI(t, env, "", "project", "create", "--name", "Acme"); err != nil {
		t.Fatal(err)
	}
	if _, err := runCLI(t, env, "", "project", "list"); err != nil {
		t.Fatal(err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) == 0 {
		t.Fatal("no files")
	}
	for _, e := range entries {
		fi, err := os.Stat(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want 0600", e.Name(), fi.Mode().Perm())
		}
		if st := fi.Sys().(*syscall.Stat_t); asRoot && st.Uid != nobody {
			t.Errorf("%s belongs to uid %d, want the data directory's owner %d", e.Name(), st.Uid, nobody)
		}
	}
	if !asRoot {
		t.Log("not root: ownership not checked")
	}
}
