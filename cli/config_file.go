package cli

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
)

// defaultConfigFile is the packaged install's configuration (packaging/
// herald.env): commands read it when neither --config nor HERALD_CONFIG
// names another, so that `herald project create` run by the operator works
// on the service's data directory instead of ./herald-data.
const defaultConfigFile = "/etc/herald/herald.env"

// settings is where options come from besides the command line: the
// process environment, then the configuration file. The process
// environment wins, as with systemd's EnvironmentFile= and Environment=.
type settings struct {
	env  func(string) (string, bool)
	file map[string]string
	path string // the configuration file read, "" when none
}

func (s settings) lookup(name string) (string, bool) {
	if v, ok := s.env(name); ok {
		return v, true
	}
	v, ok := s.file[name]
	return v, ok
}

// loadSettings reads the configuration file named by flagValue (--config),
// else by HERALD_CONFIG, else defaultFile when it exists.
func loadSettings(env func(string) (string, bool), flagValue, defaultFile string) (settings, error) {
	s := settings{env: env}
	path, required := flagValue, true
	if path == "" {
		path, _ = env("HERALD_CONFIG")
	}
	if path == "" {
		path, required = defaultFile, false
	}
	if path == "" {
		return s, nil
	}
	f, err := os.Open(path)
	switch {
	case errors.Is(err, os.ErrNotExist) && !required:
		return s, nil
	case errors.Is(err, os.ErrPermission):
		return s, fileDenied{path}
	case err != nil:
		return s, configError{fmt.Sprintf("configuration file %s: %v", path, err)}
	}
	defer f.Close()
	s.file, err = parseEnvFile(f, path)
	s.path = path
	if _, set := s.file["HERALD_DATA_DIR"]; err == nil && !set && path == defaultFile && defaultFile == defaultConfigFile {
		// The packaged install's file: its data directory is the service's.
		s.file["HERALD_DATA_DIR"] = packagedDataDir
	}
	return s, err
}

// packagedDataDir is the service's data directory on a packaged install
// (packaging/herald.service).
const packagedDataDir = "/var/lib/herald"

// parseEnvFile reads NAME=VALUE lines as systemd's EnvironmentFile= does
// for the simple cases: blank lines and # comments are skipped, an
// optional "export " prefix is allowed, and a value may be quoted.
func parseEnvFile(f *os.File, path string) (map[string]string, error) {
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") || strings.HasPrefix(line, ";") {
			continue
		}
		line = strings.TrimPrefix(line, "export ")
		name, value, ok := strings.Cut(line, "=")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, configError{fmt.Sprintf("configuration file %s, line %d: want NAME=VALUE, got %q", path, n, line)}
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[name] = value
	}
	if err := sc.Err(); err != nil {
		return nil, configError{fmt.Sprintf("configuration file %s: %v", path, err)}
	}
	return out, nil
}

// fileDenied is a configuration file the user may not read.
type fileDenied struct{ path string }

func (e fileDenied) Error() string {
	return fmt.Sprintf("configuration file %s: permission denied (it is readable by root and the herald group: run the command with sudo, or as the herald user)", e.path)
}

func (e fileDenied) Is(target error) bool { return target == os.ErrPermission }

// configError is a bad setting: the command stops with exit code 2 and
// this one line.
type configError struct{ msg string }

func (e configError) Error() string { return e.msg }
