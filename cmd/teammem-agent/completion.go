package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strings"
)

func init() {
	register(command{Name: "completion", Summary: "print a shell completion script (bash, zsh or fish)", Run: runCompletion})
}

const completionUsage = `Usage: teammem-agent completion <bash|zsh|fish>

Prints a completion script for the shell. Install it with, for example:
  bash:  teammem-agent completion bash > ~/.local/share/bash-completion/completions/teammem-agent
  zsh:   teammem-agent completion zsh > "${fpath[1]}/_teammem-agent"
  fish:  teammem-agent completion fish > ~/.config/fish/completions/teammem-agent.fish
`

// runCompletion prints the completion script of one shell.
func runCompletion(ctx context.Context, e *cliEnv, args []string) error {
	if len(args) == 1 && (args[0] == "-h" || args[0] == "--help") {
		fmt.Fprint(e.Stdout, completionUsage)
		return nil
	}
	if len(args) != 1 {
		return errUsage("completion: name one shell: bash, zsh or fish")
	}
	write, ok := map[string]func(io.Writer, []cmdSpec){"bash": bashCompletion, "zsh": zshCompletion, "fish": fishCompletion}[args[0]]
	if !ok {
		return errUsage("completion: unknown shell %q: want bash, zsh or fish", args[0])
	}
	write(e.Stdout, commandSpecs(ctx, e))
	return nil
}

// cmdSpec is what completion offers after a command: its subcommand words
// and its flags.
type cmdSpec struct {
	name, summary string
	words, flags  []string
}

var (
	// helpFlagRE finds the flags in a command's --help: "  -name" lines of
	// flag.PrintDefaults and "  --name" lines of hand-written help.
	helpFlagRE = regexp.MustCompile(`(?m)^\s+--?([a-z][a-z0-9-]*)`)
	// helpWordsRE finds the subcommands in a usage line: "<a|b ARG|c>".
	helpWordsRE = regexp.MustCompile(`(?m)^Usage: teammem-agent \S+ <([^>]+)>`)
)

// commandSpecs reads every command's --help, so that completion always
// offers what the commands accept.
func commandSpecs(ctx context.Context, e *cliEnv) []cmdSpec {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var specs []cmdSpec
	for _, n := range names {
		var help bytes.Buffer
		he := *e
		he.Stdout, he.Stderr = &help, io.Discard
		commands[n].Run(ctx, &he, []string{"--help"}) //nolint:errcheck // only the text matters
		s := cmdSpec{name: n, summary: commands[n].Summary}
		for _, m := range helpFlagRE.FindAllStringSubmatch(help.String(), -1) {
			if f := "--" + m[1]; !slices.Contains(s.flags, f) {
				s.flags = append(s.flags, f)
			}
		}
		if m := helpWordsRE.FindStringSubmatch(help.String()); m != nil {
			for alt := range strings.SplitSeq(m[1], "|") {
				s.words = append(s.words, strings.Fields(alt)[0])
			}
		}
		specs = append(specs, s)
	}
	return specs
}

func bashCompletion(w io.Writer, specs []cmdSpec) {
	fmt.Fprint(w, "# bash completion for teammem-agent (teammem-agent completion bash)\n_teammem_agent() {\n")
	fmt.Fprint(w, "\tlocal cur=${COMP_WORDS[COMP_CWORD]} words=\n\tif [ \"$COMP_CWORD\" -eq 1 ]; then\n")
	fmt.Fprintf(w, "\t\twords=%s\n\telse\n\t\tcase ${COMP_WORDS[1]} in\n", shellQuote(strings.Join(specNames(specs), " ")))
	for _, s := range specs {
		fmt.Fprintf(w, "\t\t%s) words=%s ;;\n", s.name, shellQuote(strings.Join(append(s.words, s.flags...), " ")))
	}
	fmt.Fprint(w, "\t\tesac\n\tfi\n\tCOMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n}\n")
	fmt.Fprint(w, "complete -o default -F _teammem_agent teammem-agent\n")
}

func zshCompletion(w io.Writer, specs []cmdSpec) {
	fmt.Fprint(w, "#compdef teammem-agent\n# zsh completion for teammem-agent (teammem-agent completion zsh)\n_teammem_agent() {\n")
	fmt.Fprint(w, "\tlocal -a cmds opts\n\tcmds=(\n")
	for _, s := range specs {
		fmt.Fprintf(w, "\t\t%s\n", shellQuote(s.name+":"+s.summary))
	}
	fmt.Fprint(w, "\t)\n\tif (( CURRENT == 2 )); then\n\t\t_describe command cmds\n\t\treturn\n\tfi\n\tcase $words[2] in\n")
	for _, s := range specs {
		fmt.Fprintf(w, "\t\t(%s) opts=(%s) ;;\n", s.name, strings.Join(append(slices.Clone(s.words), s.flags...), " "))
	}
	fmt.Fprint(w, "\tesac\n\tif [[ $PREFIX == -* ]]; then\n\t\tcompadd -- ${(M)opts:#-*}\n\telse\n")
	fmt.Fprint(w, "\t\tcompadd -- ${opts:#-*}\n\t\t_files\n\tfi\n}\ncompdef _teammem_agent teammem-agent\n")
}

func fishCompletion(w io.Writer, specs []cmdSpec) {
	fmt.Fprint(w, "# fish completion for teammem-agent (teammem-agent completion fish)\n")
	for _, s := range specs {
		fmt.Fprintf(w, "complete -c teammem-agent -f -n __fish_use_subcommand -a %s -d %s\n", s.name, shellQuote(s.summary))
		cond := shellQuote("__fish_seen_subcommand_from " + s.name)
		if len(s.words) > 0 {
			fmt.Fprintf(w, "complete -c teammem-agent -f -n %s -a %s\n", cond, shellQuote(strings.Join(s.words, " ")))
		}
		for _, f := range s.flags {
			fmt.Fprintf(w, "complete -c teammem-agent -n %s -l %s\n", cond, strings.TrimPrefix(f, "--"))
		}
	}
}

func specNames(specs []cmdSpec) []string {
	var names []string
	for _, s := range specs {
		names = append(names, s.name)
	}
	return append(names, "help")
}

// shellQuote quotes s for bash, zsh and fish alike: in single quotes, a
// single quote inside closing the quotes, escaped, and opening them again.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
