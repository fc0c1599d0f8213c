package health

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/teammem/teammem/server"
)

// Checker makes the health reports and tidy proposals every surface
// serves (REST, the web UI, MCP, the daily run, the command line) the
// same way. It is safe for concurrent use.
type Checker struct {
	Service *server.Service
	// Upkeep gives each repository's settings and its reads (nil: the
	// defaults, the unused check off).
	Upkeep server.UpkeepStore
	// Proposer makes tidy proposals (nil: Service, the review of
	// proposals).
	Proposer Proposer
	// Observe, when not nil, is told the count of each kind of every
	// report made of a team repository (the metrics' gauges).
	Observe func(repo string, counts map[string]int)
	// Now is the clock (nil: time.Now).
	Now func() time.Time
}

// options are the Options of repo.
func (c *Checker) options(ctx context.Context, p server.Principal, repo string) (Options, error) {
	o := Options{}
	if c.Now != nil {
		o.Now = c.Now().UTC()
	}
	if c.Upkeep == nil {
		return o, nil
	}
	canon, err := server.ResolveRepo(p, repo)
	if err != nil {
		return o, nil // Read refuses it with the Service's message
	}
	st, err := c.Upkeep.UpkeepSettings(ctx, canon)
	if err != nil {
		return o, err
	}
	o.UnusedAfter = time.Duration(st.UnusedDays) * 24 * time.Hour
	o.Reads = c.Upkeep.LastReads
	return o, nil
}

// read is Read of repo with its settings.
func (c *Checker) read(ctx context.Context, p server.Principal, repo string) (Input, error) {
	o, err := c.options(ctx, p, repo)
	if err != nil {
		return Input{}, err
	}
	return Read(ctx, c.Service, p, repo, o)
}

// Report returns the health of repo for p (a read grant). Errors: Read's.
func (c *Checker) Report(ctx context.Context, p server.Principal, repo string) (Report, error) {
	in, err := c.read(ctx, p, repo)
	if err != nil {
		return Report{}, err
	}
	r := Check(in)
	if c.Observe != nil && !server.IsPersonal(r.Repo) {
		c.Observe(r.Repo, r.Count())
	}
	return r, nil
}

// ParseKinds reads a comma-separated list of kinds to tidy ("" for every
// fixable one). Errors: a *server.RequestError naming a kind that is
// unknown or that tidy cannot fix.
func ParseKinds(s string) ([]string, error) {
	if s == "" {
		return nil, nil
	}
	var out []string
	for k := range strings.SplitSeq(s, ",") {
		k = strings.TrimSpace(k)
		if !slices.Contains(Fixable, k) {
			return nil, server.InvalidParameter("kinds: %.40q is not a kind tidy fixes (%s)", k, strings.Join(Fixable, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

// Selection says which findings a tidy fixes: the one whose ID is
// Finding, else those of Kinds (every Fixable kind when none).
type Selection struct {
	Kinds   []string
	Finding string
}

// Plan returns the tidy plan of repo's findings sel selects, for p (a
// write grant: it is what a proposal would hold). Errors: Read's.
func (c *Checker) Plan(ctx context.Context, p server.Principal, repo string, sel Selection) (TidyPlan, error) {
	if _, err := c.Service.Authorize(p, repo, server.PermWrite); err != nil {
		return TidyPlan{}, err
	}
	in, err := c.read(ctx, p, repo)
	if err != nil {
		return TidyPlan{}, err
	}
	if sel.Finding != "" {
		return PlanFinding(in, Check(in), sel.Finding), nil
	}
	return Plan(in, Check(in), sel.Kinds), nil
}

// Client is what a tidy proposal's provenance names as its client,
// followed by the door it was asked through.
const Client = "teammem tidy"

// ProposalID is a proposal's id as tidy answers it.
func ProposalID(id int64) string { return strconv.FormatInt(id, 10) }

// Propose makes the tidy plan of repo and proposes it for review, as p,
// through via (the door it was asked through: "rest", "web", "daily",
// "cli"; the proposal's client says it): one proposal, or none when the
// plan is empty (id ""). It never writes the repository itself, whatever
// its review policy. The plan is a change set proposed whole: while an
// open proposal holds the same plan over the same version, proposing it
// again (a resubmitted form, a retried request, on any replica) answers
// that proposal (see server.ProposalDraft.Whole). A personal repository,
// which nobody reviews, is refused (ErrInvalid). Errors: Plan's,
// server.ErrNotImplemented when the store keeps no proposals, the
// Proposer's.
func (c *Checker) Propose(ctx context.Context, p server.Principal, repo, via string, sel Selection) (string, TidyPlan, error) {
	canon, err := c.Service.Authorize(p, repo, server.PermWrite)
	if err != nil {
		return "", TidyPlan{}, err
	}
	if server.IsPersonal(canon) {
		return "", TidyPlan{}, server.InvalidParameter("repo: a personal repository has no review, so no admin could approve a tidy of it; " +
			"read the plan with dry_run=1 and make its changes yourself")
	}
	var proposer Proposer = c.Service
	if c.Proposer != nil {
		proposer = c.Proposer
	} else if !c.Service.KeepsProposals() {
		return "", TidyPlan{}, fmt.Errorf("tidy makes a proposal for review, and this server keeps no proposals: "+
			"read the plan with dry_run=1 or `teammem-server tidy --dry-run`: %w", server.ErrNotImplemented)
	}
	plan, err := c.Plan(ctx, p, repo, sel)
	if err != nil || plan.Empty() {
		return "", plan, err
	}
	prop, err := proposer.Propose(ctx, p, plan.Repo, plan.ChangeSet(Client+" ("+via+")"))
	if err != nil {
		return "", plan, err
	}
	return ProposalID(prop.ID), plan, nil
}
