// Package packaging holds the tests of Herald's packages and systemd unit;
// the files beside it are what packaging/build.sh packs.
package packaging

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestUnitExposure: the unit's exposure by `systemd-analyze security` is
// 2.0 or less, and `systemd-analyze verify` finds nothing wrong with it.
func TestUnitExposure(t *testing.T) {
	if _, err := exec.LookPath("systemd-analyze"); err != nil {
		t.Skip("systemd-analyze is not installed: the unit's hardening is not checked")
	}
	out, err := exec.Command("systemd-analyze", "security", "--offline=true", "--no-pager", "herald.service").CombinedOutput()
	if err != nil {
		t.Fatalf("systemd-analyze security: %v\n%s", err, out)
	}
	m := regexp.MustCompile(`Overall exposure level for herald.service: ([0-9.]+)`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no exposure level in:\n%s", out)
	}
	if level, _ := strconv.ParseFloat(string(m[1]), 64); level > 2.0 {
		t.Fatalf("exposure %.1f, want 2.0 or less:\n%s", level, out)
	}
	t.Logf("exposure %s", m[1])

	// verify needs ExecStart to exist: point it at an executable that does.
	unit, err := os.ReadFile("herald.service")
	if err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	tmp := filepath.Join(dir, "herald.service")
	if err := os.WriteFile(tmp, bytes.ReplaceAll(unit, []byte("/usr/bin/herald"), []byte(self)), 0o644); err != nil {
		t.Fatal(err)
	}
	verify(t, tmp)

	// The drop-ins for an inbound listener on port 25 and for the
	// submission listeners on 465/587 add only what they need.
	for _, name := range []string{"inbound-smtp.conf", "submission-smtp.conf"} {
		dropIn, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range []string{"AmbientCapabilities=CAP_NET_BIND_SERVICE", "CapabilityBoundingSet=CAP_NET_BIND_SERVICE"} {
			if !bytes.Contains(dropIn, []byte(want)) {
				t.Fatalf("%s lacks %s", name, want)
			}
		}
	}
	if bytes.Contains(unit, []byte("CAP_NET_BIND_SERVICE\n")) && !bytes.Contains(unit, []byte("CapabilityBoundingSet=\n")) {
		t.Fatal("the unit grants CAP_NET_BIND_SERVICE without an inbound listener")
	}
}

// verify runs `systemd-analyze verify` on a unit file and fails on any
// complaint about it.
func verify(t *testing.T, path string) {
	t.Helper()
	out, err := exec.Command("systemd-analyze", "verify", "--man=false", path).CombinedOutput()
	var problems []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if strings.Contains(l, filepath.Base(path)) || strings.Contains(l, "herald") {
			problems = append(problems, l)
		}
	}
	if err != nil || len(problems) > 0 {
		t.Fatalf("systemd-analyze verify %s: %v\n%s", path, err, out)
	}
}

// TestDebPackage builds the .deb twice (two versions), installs the first
// on this machine, runs herald as the herald user against
// /var/lib/herald, upgrades to the second, removes it and purges it. It
// changes the machine, so it runs only when asked (HERALD_TEST_DEB=1,
// which .ci/run sets in its packaging step): `go test ./...` never
// installs a package. It needs root on Debian with dpkg, and skips with a
// message otherwise.
func TestDebPackage(t *testing.T) {
	switch {
	case os.Getenv("HERALD_TEST_DEB") != "1":
		t.Skip("installs the .deb on this machine: runs only with HERALD_TEST_DEB=1 (.ci/run sets it)")
	case testing.Short():
		t.Skip("-short: the .deb is not built nor installed")
	case os.Geteuid() != 0:
		t.Skip("not root: the .deb install test needs root on Debian")
	}
	if _, err := os.Stat("/etc/debian_version"); err != nil {
		t.Skip("not Debian: the .deb install test is skipped")
	}
	for _, tool := range []string{"dpkg", "dpkg-deb", "runuser", "git"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is missing: the .deb install test is skipped", tool)
		}
	}
	if out, err := exec.Command("dpkg-query", "-W", "-f=${Status}", "herald").Output(); err == nil && strings.Contains(string(out), "installed") {
		t.Skip("herald is already installed on this machine: the .deb test leaves it alone")
	}
	// One such test at a time on a machine (dpkg has one lock).
	lock, err := os.OpenFile(filepath.Join(os.TempDir(), "herald-deb-test.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		t.Fatal(err)
	}

	arch := runtime.GOARCH
	first, second := build(t, "0.0.1", arch), build(t, "0.0.2", arch)
	t.Cleanup(func() { _, _ = dpkg("--purge", "herald") })

	mustDpkg(t, "--install", first)
	herald := func(user string, args ...string) string {
		t.Helper()
		cmd := exec.Command("runuser", append([]string{"-u", user, "--", "/usr/bin/herald"}, args...)...)
		cmd.Dir = "/" // from any folder: the commands find the service's configuration
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("herald %v as %s: %v\n%s", args, user, err, out)
		}
		return string(out)
	}
	if v := herald("herald", "version"); !strings.Contains(v, "herald 0.0.1 (commit ") {
		t.Fatalf("version: %s", v)
	}
	if st := herald("herald", "migrate", "status"); !strings.Contains(st, "VERSION") {
		t.Fatalf("migrate status: %s", st)
	}
	wantFile(t, "/usr/bin/herald", 0o755, "root", "root")
	wantFile(t, "/var/lib/herald", 0o750|os.ModeDir, "herald", "herald")
	wantFile(t, "/etc/herald/herald.env", 0o640, "root", "herald")
	wantFile(t, "/lib/systemd/system/herald.service", 0o644, "root", "root")
	if out, _ := exec.Command("dpkg-query", "-W", "-f=${Conffiles}", "herald").Output(); !strings.Contains(string(out), "/etc/herald/herald.env") {
		t.Fatalf("herald.env is not a conffile: %q", out)
	}
	verify(t, "/lib/systemd/system/herald.service")

	// Root creates a project from any folder: the service's data
	// directory, files owned by herald, and herald can use them.
	if out := herald("root", "project", "create", "--name", "Packaged"); !strings.Contains(out, "sk_") {
		t.Fatalf("project create: %s", out)
	}
	if _, err := os.Stat("/herald-data"); err == nil {
		t.Fatal("a ./herald-data was made")
	}
	entries, _ := os.ReadDir("/var/lib/herald")
	for _, e := range entries {
		wantOwner(t, filepath.Join("/var/lib/herald", e.Name()), "herald")
	}
	if out := herald("herald", "project", "list"); !strings.Contains(out, "Packaged") {
		t.Fatalf("project list as herald: %s", out)
	}

	// Errors about files name the file and the likely cause: another user
	// cannot read the configuration (but can ask for the version), and a
	// database left to root is not writable by herald.
	if v := herald("nobody", "version"); !strings.Contains(v, "herald 0.0.1") {
		t.Fatalf("version as nobody: %s", v)
	}
	failing := func(user string, args ...string) string {
		t.Helper()
		cmd := exec.Command("runuser", append([]string{"-u", user, "--", "/usr/bin/herald"}, args...)...)
		cmd.Dir = "/"
		out, err := cmd.CombinedOutput()
		if err == nil {
			t.Fatalf("herald %v as %s worked:\n%s", args, user, out)
		}
		return string(out)
	}
	if out := failing("nobody", "project", "list"); !strings.Contains(out, "/etc/herald/herald.env: permission denied") {
		t.Fatalf("project list as nobody: %s", out)
	}
	if err := os.Chown("/var/lib/herald/herald.db", 0, 0); err != nil {
		t.Fatal(err)
	}
	if out := failing("herald", "project", "list"); !strings.Contains(out, "/var/lib/herald/herald.db is not writable by herald: it belongs to root") {
		t.Fatalf("project list on a root-owned database: %s", out)
	}
	herald("root", "project", "list") // root's commands give the files back to the data directory's owner
	wantOwner(t, "/var/lib/herald/herald.db", "herald")

	// Upgrade: the operator's configuration and the data stay.
	env, err := os.ReadFile("/etc/herald/herald.env")
	if err != nil {
		t.Fatal(err)
	}
	edited := append(env, []byte("HERALD_RATE_LIMIT=500\n")...)
	if err := os.WriteFile("/etc/herald/herald.env", edited, 0o640); err != nil {
		t.Fatal(err)
	}
	mustDpkg(t, "--force-confold", "--install", second)
	if v := herald("herald", "version"); !strings.Contains(v, "herald 0.0.2 ") {
		t.Fatalf("version after the upgrade: %s", v)
	}
	if got, _ := os.ReadFile("/etc/herald/herald.env"); !bytes.Equal(got, edited) {
		t.Fatalf("the upgrade changed herald.env:\n%s", got)
	}
	wantFile(t, "/etc/herald/herald.env", 0o640, "root", "herald")
	if out := herald("herald", "project", "list"); !strings.Contains(out, "Packaged") {
		t.Fatalf("project list after the upgrade: %s", out)
	}

	// Remove keeps the data and the configuration; purge deletes them.
	mustDpkg(t, "--remove", "herald")
	if _, err := os.Stat("/usr/bin/herald"); err == nil {
		t.Fatal("remove left /usr/bin/herald")
	}
	for _, kept := range []string{"/var/lib/herald/herald.db", "/etc/herald/herald.env"} {
		if _, err := os.Stat(kept); err != nil {
			t.Fatalf("remove deleted %s: %v", kept, err)
		}
	}
	mustDpkg(t, "--purge", "herald")
	for _, gone := range []string{"/var/lib/herald", "/etc/herald"} {
		if _, err := os.Stat(gone); err == nil {
			t.Fatalf("purge left %s", gone)
		}
	}
}

// build runs packaging/build.sh for one linux arch and returns the .deb.
func build(t *testing.T, version, arch string) string {
	t.Helper()
	dist := t.TempDir()
	cmd := exec.Command("./packaging/build.sh")
	cmd.Dir = ".."
	cmd.Env = append(os.Environ(), "HERALD_VERSION="+version, "DIST="+dist, "TARGETS=linux/"+arch)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build.sh: %v\n%s", err, out)
	}
	deb := filepath.Join(dist, "herald_"+version+"_"+arch+".deb")
	if _, err := os.Stat(deb); err != nil {
		t.Fatal(err)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil || !strings.Contains(string(sums), filepath.Base(deb)) {
		t.Fatalf("SHA256SUMS: %v\n%s", err, sums)
	}
	return deb
}

// dpkg runs dpkg, waiting for its lock if another dpkg holds it.
func dpkg(args ...string) ([]byte, error) {
	deadline := time.Now().Add(2 * time.Minute)
	for {
		out, err := exec.Command("dpkg", args...).CombinedOutput()
		if err == nil || !bytes.Contains(out, []byte("lock")) || time.Now().After(deadline) {
			return out, err
		}
		time.Sleep(time.Second)
	}
}

func mustDpkg(t *testing.T, args ...string) {
	t.Helper()
	if out, err := dpkg(args...); err != nil {
		t.Fatalf("dpkg %v: %v\n%s", args, err, out)
	}
}

func wantFile(t *testing.T, path string, mode os.FileMode, user, group string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&(os.ModePerm|os.ModeDir) != mode {
		t.Errorf("%s is %v, want %v", path, fi.Mode(), mode)
	}
	st := fi.Sys().(*syscall.Stat_t)
	if u := idName("passwd", st.Uid); u != user {
		t.Errorf("%s belongs to user %s, want %s", path, u, user)
	}
	if g := idName("group", st.Gid); g != group {
		t.Errorf("%s belongs to group %s, want %s", path, g, group)
	}
}

func wantOwner(t *testing.T, path, user string) {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if u := idName("passwd", fi.Sys().(*syscall.Stat_t).Uid); u != user {
		t.Errorf("%s belongs to %s, want %s", path, u, user)
	}
}

// idName looks a numeric id up in passwd or group.
func idName(db string, id uint32) string {
	out, err := exec.Command("getent", db, strconv.Itoa(int(id))).Output()
	if err != nil {
		return strconv.Itoa(int(id))
	}
	name, _, _ := strings.Cut(string(out), ":")
	return name
}
