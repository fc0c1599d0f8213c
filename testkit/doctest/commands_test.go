package doctest

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A command line shown in the docs: a shell code block's line that runs one
// of the binaries (directly, through go run, or after a prompt or env
// assignment).
var binRun = regexp.MustCompile(`(?:^|[\s;&|(])(?:go run \./cmd/)?(teammem-server|teammem-agent)\b(.*)$`)

// docCommands returns the command lines of the shell code blocks of a
// Markdown document, continuation lines joined.
func docCommands(src string) []string {
	var cmds []string
	in, joined := false, ""
	for _, line := range strings.Split(src, "\n") {
		trimmed := strings.TrimSpace(line)
		if strings.HasPrefix(trimmed, "```") {
			lang := strings.TrimPrefix(trimmed, "```")
			in = !in && (lang == "sh" || lang == "bash" || lang == "console" || lang == "shell")
			continue
		}
		if !in {
			continue
		}
		if strings.HasSuffix(trimmed, "\\") {
			joined += strings.TrimSuffix(trimmed, "\\") + " "
			continue
		}
		full := joined + trimmed
		joined = ""
		if i := strings.Index(full, " #"); i >= 0 {
			full = full[:i] // a trailing comment
		}
		if m := binRun.FindStringSubmatch(full); m != nil {
			cmds = append(cmds, strings.Join(strings.Fields(m[1]+m[2]), " "))
		}
	}
	// Commands in the prose's code spans, such as `teammem-agent sync --reseed`.
	for _, m := range inlineRun.FindAllStringSubmatch(src, -1) {
		cmds = append(cmds, strings.TrimSpace(m[1]))
	}
	return cmds
}

var inlineRun = regexp.MustCompile("(?m)(?:^|[^`])`((?:teammem-server|teammem-agent) [^`\n]*)`")

// checkCommand says what is wrong with a documented command line, given
// the help text of every command, or "".
func checkCommand(line string, helps map[string]string) string {
	words := strings.Fields(line)
	bin := words[0]
	// The longest run of leading non-flag words that names a command.
	cmd := bin
	for i := 1; i < len(words) && !strings.HasPrefix(words[i], "-"); i++ {
		if _, ok := helps[strings.Join(words[:i+1], " ")]; ok {
			cmd = strings.Join(words[:i+1], " ")
		}
	}
	help, ok := helps[cmd]
	if !ok {
		return "no such command " + cmd
	}
	if cmd == bin && len(words) > 1 && words[1] == "help" && strings.Contains(help, bin+" help ") {
		return "" // `help CMD`, offered by the binary's own help
	}
	if cmd == bin && len(words) > 1 && !strings.HasPrefix(words[1], "-") {
		return "no such command " + bin + " " + words[1]
	}
	for _, w := range words[1:] {
		if !strings.HasPrefix(w, "--") || w == "--" {
			continue
		}
		name := strings.TrimPrefix(w, "--")
		if i := strings.IndexAny(name, "=)'\""); i >= 0 {
			name = name[:i]
		}
		if name == "help" || (name == "version" && cmd == bin) {
			continue
		}
		if !regexp.MustCompile(`(?m)(^|\s)--?` + regexp.QuoteMeta(name) + `(\s|=|$|,)`).MatchString(help) {
			return "`" + cmd + "` has no flag --" + name
		}
	}
	return ""
}

// checkDocCommands checks every command line shown in the repository's
// Markdown against the real commands' help.
func checkDocCommands(t *testing.T, helps map[string]string) {
	t.Helper()
	n := 0
	for _, f := range markdownFiles(t) {
		if strings.HasPrefix(f, "docs/cli/") {
			continue // the help output itself
		}
		src, err := os.ReadFile(filepath.Join(repoRoot, f))
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range docCommands(string(src)) {
			if p := checkCommand(c, helps); p != "" {
				t.Errorf("%s: %q: %s", f, c, p)
			}
			n++
		}
	}
	t.Logf("%d documented command lines checked against --help", n)
}

func TestCheckCommand(t *testing.T) {
	helps := map[string]string{
		"teammem-server":              "Commands:\n  serve\n  token create\n",
		"teammem-server serve":        "  -addr HOST:PORT\n  -data-dir DIR\n",
		"teammem-server token create": "Usage: teammem-server token create --subject NAME --grant GLOB:PERM\n  -ttl duration\n",
	}
	for line, want := range map[string]string{
		"teammem-server serve --addr 0.0.0.0:8080":                      "",
		"teammem-server serve --data-dir=/x":                            "",
		"teammem-server token create --subject ana --grant 'a/*:write'": "",
		"teammem-server --version":                                      "",
		"teammem-server serve --no-such-flag":                           "`teammem-server serve` has no flag --no-such-flag",
		"teammem-server backup --to f":                                  "no such command teammem-server backup",
	} {
		if got := checkCommand(line, helps); got != want {
			t.Errorf("checkCommand(%q) = %q, want %q", line, got, want)
		}
	}
	got := docCommands("text\n```sh\nexport X=1\nteammem-agent run   # watch\nTOKEN=$(cat t) teammem-server serve \\\n  --addr :1\n```\n```text\nteammem-agent nope\n```\n")
	got = append(got, docCommands("Run `teammem-agent sync --reseed` or `teammem-server`.\n")...)
	if strings.Join(got, "|") != "teammem-agent run|teammem-server serve --addr :1|teammem-agent sync --reseed" {
		t.Errorf("docCommands = %q", got)
	}
}
