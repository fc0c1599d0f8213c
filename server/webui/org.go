package webui

import (
	"context"
	"errors"
	"html/template"
	"strings"

	"github.com/teammem/teammem/memcore/protocol"
	"github.com/teammem/teammem/server"
)

// orgIndex is an org memory's index as a repository's page shows it.
type orgIndex struct {
	Repo, Namespace string
	Index           template.HTML // rendered MEMORY.md; empty when it has none
}

// orgView is what a repository's page adds about org memory: the org
// memories that apply to it (those the caller reads, nearest first) or,
// on an org memory's own page, its namespace and the repositories of it
// the caller reads.
type orgView struct {
	Orgs      []orgIndex
	Namespace string
	Members   []string
}

// orgViewOf gathers repo's orgView for p.
func (u *UI) orgViewOf(ctx context.Context, p server.Principal, repo string) (orgView, error) {
	if ns := protocol.OrgNamespace(repo); ns != "" {
		return u.orgMembers(ctx, p, ns)
	}
	if server.IsPersonal(repo) {
		return orgView{}, nil // personal memory has no org memory
	}
	var v orgView
	for _, org := range protocol.OrgMemories(repo) {
		if !p.Can(org, server.PermRead) {
			continue
		}
		rev, err := u.svc.Revision(ctx, p, org, memoryIndex, 0)
		switch {
		case errors.Is(err, server.ErrNotFound):
			continue
		case err != nil:
			return orgView{}, err
		}
		o := orgIndex{Repo: org, Namespace: protocol.OrgNamespace(org)}
		if rev.Op != server.OpDelete {
			o.Index = u.md.render(org, memoryIndex, rev.Content)
		}
		v.Orgs = append(v.Orgs, o)
	}
	return v, nil
}

// orgMembers lists the repositories of namespace ns (nested groups' too)
// that p reads, org memories aside.
func (u *UI) orgMembers(ctx context.Context, p server.Principal, ns string) (orgView, error) {
	v := orgView{Namespace: ns}
	repos, err := u.svc.Repos(ctx, p)
	if err != nil {
		return orgView{}, err
	}
	for _, st := range repos {
		if strings.HasPrefix(st.Repo, ns+"/") && !protocol.IsOrgMemory(st.Repo) {
			v.Members = append(v.Members, st.Repo)
		}
	}
	return v, nil
}
