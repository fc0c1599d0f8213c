// Package cliflags holds what both commands' flag handling share
// (spec/cli.md): every flag has an environment twin TEAMMEM_<NAME>, and
// flags given on the command line win over it.
package cliflags

import (
	"flag"
	"fmt"
	"strings"
)

// EnvName is the environment twin of a flag: --data-dir → TEAMMEM_DATA_DIR.
func EnvName(flagName string) string {
	return "TEAMMEM_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

// ApplyEnv sets every flag of fs that the command line left unset from its
// non-empty environment twin; a repeatable List flag takes a
// comma-separated list. getenv may be nil (no environment).
func ApplyEnv(fs *flag.FlagSet, getenv func(string) string) error {
	if getenv == nil {
		return nil
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	var firstErr error
	fs.VisitAll(func(f *flag.Flag) {
		if given[f.Name] || firstErr != nil {
			return
		}
		name := EnvName(f.Name)
		if v := getenv(name); v != "" {
			if err := set(f, v); err != nil {
				firstErr = fmt.Errorf("environment %s=%q: %w", name, v, err)
			}
		}
	})
	return firstErr
}

func set(f *flag.Flag, v string) error {
	if _, ok := f.Value.(*List); !ok {
		return f.Value.Set(v)
	}
	for _, item := range strings.Split(v, ",") {
		if item = strings.TrimSpace(item); item != "" {
			if err := f.Value.Set(item); err != nil {
				return err
			}
		}
	}
	return nil
}

// List is a repeatable string flag.
type List []string

func (l *List) String() string { return strings.Join(*l, ",") }

// Set appends one value.
func (l *List) Set(v string) error { *l = append(*l, v); return nil }
