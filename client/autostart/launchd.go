package autostart

import (
	"encoding/xml"
	"fmt"
	"os"
	"strings"
)

// plist is the launchd agent: loaded at login, run at load, restarted when
// it exits with a failure, its output in ~/Library/Logs.
func (s *Service) plist() string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<plist version="1.0">
<dict>
	<key>Label</key>
	<string>` + label + `</string>
	<key>ProgramArguments</key>
	<array>
`)
	for _, a := range s.Args {
		b.WriteString("\t\t<string>" + xmlText(a) + "</string>\n")
	}
	b.WriteString(`	</array>
	<key>RunAtLoad</key>
	<true/>
	<key>KeepAlive</key>
	<dict>
		<key>SuccessfulExit</key>
		<false/>
	</dict>
	<key>ProcessType</key>
	<string>Background</string>
	<key>StandardOutPath</key>
	<string>` + xmlText(s.logPath) + `</string>
	<key>StandardErrorPath</key>
	<string>` + xmlText(s.logPath) + `</string>
</dict>
</plist>
`)
	return b.String()
}

func xmlText(s string) string {
	var b strings.Builder
	xml.EscapeText(&b, []byte(s)) //nolint:errcheck // a Builder does not fail
	return b.String()
}

// domain is the user's GUI launchd domain.
func (s *Service) domain() string { return fmt.Sprintf("gui/%d", os.Getuid()) }

// target is the service in that domain.
func (s *Service) target() string { return s.domain() + "/" + label }
