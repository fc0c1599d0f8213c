package server

import (
	"context"
	"time"
)

// proposalFilter is a subscription of p to repo that drops the proposal
// updates that are not p's to hear: p hears of a proposal when it may
// decide it (a reviewer of repo) or wrote it.
type proposalFilter struct {
	Subscription
	p    Principal
	repo string
}

// Next is the subscription's Next without the proposal updates that are
// not p's.
func (f *proposalFilter) Next(ctx context.Context, idle <-chan time.Time) (Update, error) {
	for {
		u, err := f.Subscription.Next(ctx, idle)
		if err != nil || u.Proposal == nil || f.hears(u.Proposal) {
			return u, err
		}
	}
}

func (f *proposalFilter) hears(prop *Proposal) bool {
	return prop.Repo == f.repo && (canReview(f.p, f.repo) || prop.Author == f.p.Subject)
}
