package autostart

import "strings"

// unit is the systemd user unit: started with the user's session, the
// agent restarted when it fails, stopped with SIGTERM (the agent then
// pushes what is pending and exits 0).
func (s *Service) unit() string {
	var exec []string
	for _, a := range s.Args {
		exec = append(exec, systemdQuote(a))
	}
	return `[Unit]
Description=teammem agent: keeps the team memory of the registered checkouts in step
Documentation=https://github.com/teammem/teammem/blob/main/docs/cli/teammem-agent.md#teammem-agent-service

[Service]
Type=simple
ExecStart=` + strings.Join(exec, " ") + `
Restart=on-failure
RestartSec=10
KillSignal=SIGTERM
TimeoutStopSec=30

[Install]
WantedBy=default.target
`
}

// systemdQuote quotes one word of ExecStart: in double quotes, with
// backslashes and quotes escaped and "%" doubled (it starts a specifier).
func systemdQuote(a string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "%", "%%", "$", "$$")
	return `"` + r.Replace(a) + `"`
}
