package cli

import (
	"fmt"

	"github.com/spf13/pflag"
)

// submissionSettings are the SMTP submission listeners' options (the
// README's "SMTP submission" section lists each with its variable).
type submissionSettings struct {
	SubmissionListen    string // STARTTLS, e.g. :587; "" off
	SubmissionTLSListen string // implicit TLS, e.g. :465; "" off
	SubmissionTLSCert   string
	SubmissionTLSKey    string
}

func submissionFlags(fs *pflag.FlagSet, c *config) {
	s := &c.submissionSettings
	fs.StringVar(&s.SubmissionListen, "submission-listen", "", "address of the SMTP submission listener with STARTTLS, for applications that send through SMTP (e.g. :587); empty: off")
	fs.StringVar(&s.SubmissionTLSListen, "submission-tls-listen", "", "address of the SMTP submission listener with implicit TLS (e.g. :465); empty: off")
	fs.StringVar(&s.SubmissionTLSCert, "submission-tls-cert", "", "PEM certificate (chain) of both submission listeners; default: the inbound listener's self-signed one, kept in the data dir")
	fs.StringVar(&s.SubmissionTLSKey, "submission-tls-key", "", "PEM private key of --submission-tls-cert")
}

// settingPairs are settings that go together: both or neither.
var settingPairs = [][2]string{
	{"HERALD_SUBMISSION_TLS_CERT", "HERALD_SUBMISSION_TLS_KEY"},
}

// checkSettingPairs refuses one setting of a pair without the other, as
// the environment and the configuration file give them.
func checkSettingPairs(lookup func(string) (string, bool)) error {
	for _, p := range settingPairs {
		a, _ := lookup(p[0])
		b, _ := lookup(p[1])
		if (a == "") != (b == "") {
			return pairError(p[0], p[1])
		}
	}
	return nil
}

func pairError(a, b string) error {
	return configError{fmt.Sprintf("%s and %s go together: give both files or neither", a, b)}
}

// checkSubmissionFlags refuses a certificate without its key given on the
// command line (checkSettingPairs has checked the environment), before
// serve opens anything.
func checkSubmissionFlags(c *config) error {
	if s := c.submissionSettings; (s.SubmissionTLSCert == "") != (s.SubmissionTLSKey == "") {
		return pairError("--submission-tls-cert", "--submission-tls-key")
	}
	return nil
}
