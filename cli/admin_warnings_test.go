package cli

import (
	"slices"
	"testing"
)

// Bounce handling off is the administrator's warning, not the public
// one, and no warning in the sandbox, where nothing is delivered.
func TestAdminWarnings(t *testing.T) {
	public := []string{"base URL"}
	if got := adminWarnings(&config{}, public); !slices.Equal(got, []string{"base URL", WarningBouncesOff}) {
		t.Errorf("no inbound listener: %q", got)
	}
	if got := adminWarnings(&config{InboundListen: ":25"}, public); !slices.Equal(got, public) {
		t.Errorf("inbound listener: %q", got)
	}
	if got := adminWarnings(&config{Sandbox: true}, public); !slices.Equal(got, public) {
		t.Errorf("sandbox: %q", got)
	}
}
