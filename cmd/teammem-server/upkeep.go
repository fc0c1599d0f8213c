package main

import (
	"context"
	"errors"
	"flag"
	"fmt"

	"github.com/teammem/teammem/server"
)

// runUpkeep implements `upkeep`: a repository's upkeep settings, printed,
// and changed by the flags given.
func runUpkeep(ctx context.Context, args []string, e env) error {
	var repo, dataDir, databaseURL string
	var days int
	var daily bool
	fs := newFlagSet("upkeep", "teammem-server upkeep --repo SLUG [--unused-days N] [--daily-tidy=true|false] [--data-dir DIR | --database-url URL]", e.stderr)
	fs.StringVar(&repo, "repo", "", "the repository `SLUG`")
	fs.IntVar(&days, "unused-days", 0, "report topics neither read nor changed for `N` days (0: off, the default)")
	fs.BoolVar(&daily, "daily-tidy", false, "propose a tidy of the repository once a day (off by default)")
	storeFlags(fs, &dataDir, &databaseURL)
	if err := parseFlags(fs, args, e.getenv); err != nil {
		return err
	}
	switch {
	case fs.NArg() > 0:
		return usageError{fmt.Errorf("upkeep takes no arguments, got %q", fs.Arg(0))}
	case repo == "":
		return usageError{errors.New("--repo is required")}
	}
	store, closeStore, err := openAdminStore(ctx, dataDir, databaseURL, "change upkeep settings")
	if err != nil {
		return err
	}
	defer closeStore()
	canon, err := server.CanonicalRepo(repo)
	if err != nil {
		return usageError{err}
	}
	up, ok := store.(server.UpkeepStore)
	if !ok {
		return fmt.Errorf("this store keeps no upkeep settings: %w", server.ErrNotImplemented)
	}
	st, err := up.UpkeepSettings(ctx, canon)
	if err != nil {
		return err
	}
	set := false
	fs.Visit(func(f *flag.Flag) {
		switch f.Name {
		case "unused-days":
			st.UnusedDays, set = days, true
		case "daily-tidy":
			st.DailyTidy, set = daily, true
		}
	})
	if set {
		if err := server.NewService(store, server.Config{}).SetUpkeep(operatorContext(ctx), operatorPrincipal(), canon, st); err != nil {
			return err
		}
	}
	unused := "off"
	if st.UnusedDays > 0 {
		unused = fmt.Sprintf("after %d days", st.UnusedDays)
	}
	fmt.Fprintf(e.stdout, "%s: unused check %s; daily tidy %s\n", canon, unused, onOff(st.DailyTidy))
	return nil
}

func onOff(b bool) string {
	if b {
		return "on"
	}
	return "off"
}
