package httpkit

import (
	"net/http"

	"github.com/teammem/teammem/api"
	"github.com/teammem/teammem/server"
)

// Claims returns what a write request says of itself, for
// server.PutInput.Provenance: surface, its client (the User-Agent, made
// harmless by server.CleanClient) and, when withAgent, the agent's
// Teammem-Machine and Teammem-Commit headers, each checked. Who wrote it
// is never read from the request: the Service stamps the subject and the
// credential from the verified principal. Errors: a header sent twice, or
// in a shape the server does not keep (ErrInvalid, invalid_header).
func Claims(r *http.Request, surface server.Surface, withAgent bool) (server.Provenance, error) {
	p := server.Provenance{Surface: surface, Client: server.CleanClient(r.UserAgent())}
	if !withAgent {
		return p, nil
	}
	var err error
	if p.Machine, err = oneHeader(r, api.HeaderMachine); err != nil {
		return server.Provenance{}, err
	}
	if err := server.CheckMachine(p.Machine); err != nil {
		return server.Provenance{}, err
	}
	if p.Commit, err = oneHeader(r, api.HeaderCommit); err != nil {
		return server.Provenance{}, err
	}
	if err := server.CheckCommit(p.Commit); err != nil {
		return server.Provenance{}, err
	}
	return p, nil
}

// AgentSurface returns the surface a PUT of the team memory protocol
// claims with Teammem-Surface (server.ClaimSurface): agent when absent.
func AgentSurface(r *http.Request) (server.Surface, error) {
	s, err := oneHeader(r, api.HeaderSurface)
	if err != nil {
		return "", err
	}
	return server.ClaimSurface(s)
}

// oneHeader returns the value of a header sent at most once.
func oneHeader(r *http.Request, name string) (string, error) {
	vs := r.Header.Values(name)
	if len(vs) > 1 {
		return "", server.InvalidHeader("%s was sent %d times; send it once", name, len(vs))
	}
	if len(vs) == 0 {
		return "", nil
	}
	return vs[0], nil
}
