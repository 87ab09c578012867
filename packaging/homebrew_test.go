package packaging

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestHomebrewTapAndVersion runs build.sh, without binaries (TARGETS empty), in a
// scratch repository holding this checkout's build.sh and formula: the
// version comes from HERALD_VERSION, VERSION or a tag on HEAD, and without
// them the build says so and stamps a development version, never a bare
// 0.0.0.
func TestHomebrewTapAndVersion(t *testing.T) {
	repo := scratchRepo(t)
	first := gitOut(t, repo, "rev-parse", "--short=12", "HEAD")

	dist, stderr := runBuild(t, repo)
	want := "0.0.0-dev+" + first
	if !strings.Contains(stderr, "no VERSION file and no tag") || !strings.Contains(stderr, "development build, version "+want) {
		t.Errorf("an untagged build does not say it is a development build:\n%s", stderr)
	}
	if !strings.Contains(stderr, "0.0.0~dev+"+first) {
		t.Errorf("the development build does not name the .deb's version 0.0.0~dev+%s:\n%s", first, stderr)
	}
	formula := checkFormula(t, dist, want)
	if !strings.Contains(formula, `version "`+want+`"`) {
		t.Errorf("a development formula spells out its version:\n%s", formula)
	}

	git(t, repo, "tag", "v1.2.3")
	dist, stderr = runBuild(t, repo)
	if strings.Contains(stderr, "development") {
		t.Errorf("a tagged build calls itself a development build:\n%s", stderr)
	}
	formula = checkFormula(t, dist, "1.2.3")
	again, _ := runBuild(t, repo)
	if a, b := gitOut(t, filepath.Join(dist, "homebrew-tap"), "rev-parse", "HEAD"), gitOut(t, filepath.Join(again, "homebrew-tap"), "rev-parse", "HEAD"); a != b {
		t.Errorf("two builds of v1.2.3 give the tap commits %s and %s", a, b)
	}
	if strings.Contains(formula, "\n  version ") {
		t.Errorf("a release's formula repeats the version its URL gives:\n%s", formula)
	}
	if !strings.Contains(formula, `url "https://github.com/heraldmail/herald/releases/download/v1.2.3/herald-1.2.3.tar.gz"`) {
		t.Errorf("the release's URL:\n%s", formula)
	}

	// After the tag, a development build sorts after the release.
	writeFile(t, filepath.Join(repo, "NEWS"), "after 1.2.3\n", 0o644)
	commit(t, repo)
	second := gitOut(t, repo, "rev-parse", "--short=12", "HEAD")
	dist, stderr = runBuild(t, repo)
	if !strings.Contains(stderr, "latest tag is v1.2.3") {
		t.Errorf("the development build does not name the latest tag:\n%s", stderr)
	}
	checkFormula(t, dist, "1.2.4-dev+"+second)

	writeFile(t, filepath.Join(repo, "VERSION"), "2.0.0\n", 0o644)
	commit(t, repo)
	dist, _ = runBuild(t, repo)
	checkFormula(t, dist, "2.0.0")
	dist, _ = runBuild(t, repo, "HERALD_VERSION=v2.1.0")
	checkFormula(t, dist, "2.1.0")

	cmd := buildCommand(repo, t.TempDir(), "HERALD_VERSION=2.1")
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), `"2.1" is not X.Y.Z`) {
		t.Errorf("HERALD_VERSION=2.1 is refused with a reason: %v\n%s", err, out)
	}
}

// checkFormula checks what build.sh wrote in dist for version: the source
// tarball, the formula naming its URL and sha256, SHA256SUMS, and the tap,
// a git repository with the formula committed, which a clone (what `brew
// tap NAME PATH` does) gets whole. With ruby it loads the formula as brew
// would. It returns the formula.
func checkFormula(t *testing.T, dist, version string) string {
	t.Helper()
	tarball := "herald-" + version + ".tar.gz"
	tarBytes, err := os.ReadFile(filepath.Join(dist, tarball))
	if err != nil {
		t.Fatalf("the source tarball of %s: %v", version, err)
	}
	tarSum := sha256Hex(tarBytes)
	formulaBytes, err := os.ReadFile(filepath.Join(dist, "herald.rb"))
	if err != nil {
		t.Fatal(err)
	}
	formula := string(formulaBytes)
	url := field(t, formula, "url")
	if path.Base(url) != tarball {
		t.Errorf("the formula's url %s does not name %s", url, tarball)
	}
	if got := field(t, formula, "sha256"); got != tarSum {
		t.Errorf("the formula's sha256 %s, the tarball's %s", got, tarSum)
	}
	sums, err := os.ReadFile(filepath.Join(dist, "SHA256SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{tarSum + "  " + tarball, sha256Hex(formulaBytes) + "  herald.rb"} {
		if !strings.Contains(string(sums), line+"\n") {
			t.Errorf("SHA256SUMS lacks %q:\n%s", line, sums)
		}
	}

	tap := filepath.Join(dist, "homebrew-tap")
	if top := gitOut(t, tap, "rev-parse", "--show-toplevel"); top != mustEval(t, tap) {
		t.Errorf("the tap is not a git repository of its own: its top is %s", top)
	}
	if st := gitOut(t, tap, "status", "--porcelain"); st != "" {
		t.Errorf("the tap has uncommitted changes:\n%s", st)
	}
	clone := filepath.Join(t.TempDir(), "homebrew-herald")
	git(t, filepath.Dir(clone), "clone", "-q", tap, clone)
	cloned, err := os.ReadFile(filepath.Join(clone, "Formula", "herald.rb"))
	if err != nil || !bytes.Equal(cloned, formulaBytes) {
		t.Errorf("a clone of the tap has not dist/herald.rb as Formula/herald.rb: %v", err)
	}

	t.Run("ruby "+version, func(t *testing.T) {
		loadFormula(t, filepath.Join(clone, "Formula", "herald.rb"), version, tarSum)
	})
	return formula
}

// brewReport is what testdata/formula_check.rb prints.
type brewReport struct {
	Class   string
	URL     string
	SHA256  string
	Version string
	Bin     string
	Install [][]string
	Test    [][]string
}

// loadFormula checks the formula's Ruby (`ruby -c`) and loads it with a
// stand-in for brew's Formula class: the class brew looks for, the version
// brew sees, a `go build` stamping the version and commit into bin/herald,
// and a test running `herald version` that looks for the version.
func loadFormula(t *testing.T, formula, version, sum string) {
	if _, err := exec.LookPath("ruby"); err != nil {
		if os.Getenv("HERALD_REQUIRE_RUBY") == "1" {
			t.Fatal("ruby is not installed and HERALD_REQUIRE_RUBY=1: the formula must be checked")
		}
		t.Skip("ruby is not installed: the formula's Ruby is not checked (HERALD_REQUIRE_RUBY=1, set by .ci/run, makes this fail)")
	}
	if out, err := exec.Command("ruby", "-c", formula).CombinedOutput(); err != nil {
		t.Fatalf("ruby -c: %v\n%s", err, out)
	}
	prefix := t.TempDir()
	out, err := exec.Command("ruby", filepath.Join("testdata", "formula_check.rb"), formula, prefix).Output()
	if err != nil {
		t.Fatalf("load the formula: %v\n%s", err, stderrOf(err))
	}
	var r brewReport
	if err := json.Unmarshal(out, &r); err != nil {
		t.Fatalf("formula_check.rb: %v\n%s", err, out)
	}
	if r.Class != "Herald" || r.Version != version || r.SHA256 != sum {
		t.Errorf("class %s, version %s, sha256 %s; want Herald, %s, %s", r.Class, r.Version, r.SHA256, version, sum)
	}
	binary := filepath.Join(r.Bin, "herald")
	built := false
	for _, cmd := range r.Install {
		line := strings.Join(cmd, " ")
		if strings.HasPrefix(line, "go build ") &&
			regexp.MustCompile(`-X \S*version=`+regexp.QuoteMeta(version)+`( |$)`).MatchString(line) &&
			regexp.MustCompile(`-X \S*commit=\S+`).MatchString(line) &&
			(strings.Contains(line, "-o="+binary) || strings.Contains(line, "-o "+binary)) {
			built = true
		}
		if len(cmd) >= 3 && cmd[0] == "install" && cmd[1] == r.Bin && cmd[2] == "herald" {
			built = true
		}
	}
	if !built {
		t.Errorf("install does not build bin/herald with the version and commit stamped: %q", r.Install)
	}
	runs := strings.Join([]string{"shell_output", binary + " version"}, "\x00")
	var ran, asserted bool
	for _, cmd := range r.Test {
		ran = ran || strings.Join(cmd, "\x00") == runs
		asserted = asserted || (len(cmd) == 2 && cmd[0] == "assert_match" && cmd[1] == version)
	}
	if !ran || !asserted {
		t.Errorf("the test block does not run `herald version` and look for %s: %q", version, r.Test)
	}
}

// scratchRepo is a git repository holding this checkout's build.sh and
// formula template, committed at a fixed time.
func scratchRepo(t *testing.T) string {
	t.Helper()
	repo := t.TempDir()
	for _, f := range []struct {
		name string
		mode os.FileMode
	}{{"build.sh", 0o755}, {"herald.rb", 0o644}} {
		b, err := os.ReadFile(f.name)
		if err != nil {
			t.Fatal(err)
		}
		writeFile(t, filepath.Join(repo, "packaging", f.name), string(b), f.mode)
	}
	git(t, repo, "-c", "init.defaultBranch=main", "init", "-q")
	commit(t, repo)
	return repo
}

// runBuild runs build.sh in repo without binaries and returns its dist
// directory and what it said on stderr.
func runBuild(t *testing.T, repo string, env ...string) (dist, stderr string) {
	t.Helper()
	dist = filepath.Join(t.TempDir(), "dist")
	cmd := buildCommand(repo, dist, env...)
	var errOut bytes.Buffer
	cmd.Stderr = &errOut
	if out, err := cmd.Output(); err != nil {
		t.Fatalf("build.sh: %v\n%s%s", err, out, errOut.String())
	}
	return dist, errOut.String()
}

func buildCommand(repo, dist string, env ...string) *exec.Cmd {
	cmd := exec.Command("./packaging/build.sh")
	cmd.Dir = repo
	cmd.Env = append(cleanEnv(), append([]string{"TARGETS=", "DIST=" + dist}, env...)...)
	return cmd
}

// cleanEnv is the environment without what would steer build.sh or git
// away from the scratch repository.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(name, "GIT_"), strings.HasPrefix(name, "HERALD_"),
			name == "TARGETS", name == "DIST", name == "SOURCE_DATE_EPOCH", name == "CA_BUNDLE":
			continue
		}
		env = append(env, kv)
	}
	return env
}

func commit(t *testing.T, repo string) {
	t.Helper()
	git(t, repo, "add", "-A")
	git(t, repo, "-c", "user.name=Test", "-c", "user.email=test@example.com", "-c", "commit.gpgsign=false",
		"commit", "-q", "--no-verify", "-m", "change")
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	gitOut(t, dir, args...)
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(cleanEnv(), "GIT_AUTHOR_DATE=@1700000000 +0000", "GIT_COMMITTER_DATE=@1700000000 +0000")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("git %v in %s: %v\n%s", args, dir, err, stderrOf(err))
	}
	return strings.TrimSpace(string(out))
}

// field is the quoted value of a formula's `name "value"` line.
func field(t *testing.T, formula, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^  ` + name + ` "([^"]*)"`).FindStringSubmatch(formula)
	if m == nil {
		t.Fatalf("the formula has no %s:\n%s", name, formula)
	}
	return m[1]
}

func writeFile(t *testing.T, path, body string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
}

func mustEval(t *testing.T, path string) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(path)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func sha256Hex(b []byte) string {
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func stderrOf(err error) []byte {
	if ee, ok := err.(*exec.ExitError); ok {
		return ee.Stderr
	}
	return nil
}
