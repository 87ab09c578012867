package cli

// WarningBouncesOff is the administrator's warning when no inbound
// listener takes bounces and complaints.
const WarningBouncesOff = "Bounce handling is off (HERALD_INBOUND_LISTEN is not set): bounces that arrive after " +
	"delivery and complaints sent by mail are not recorded, so addresses that bounce keep getting mail"

// adminWarnings are what the administrator sees in the dashboard's banner
// (GET /users/@me): the configuration's warnings, as GET /config shows
// them to anyone, and the ones about the setup that are the operator's
// business only. accounts adds platform mail's, the delivery checks
// theirs (app.Options.DeliveryWarnings). In the sandbox nothing is
// delivered, so nothing can bounce.
func adminWarnings(c *config, public []string) []string {
	out := append([]string(nil), public...)
	if c.InboundListen == "" && !c.Sandbox {
		out = append(out, WarningBouncesOff)
	}
	return out
}
