package writeplan

import "github.com/teammem/teammem/server"

// AuditRecord is the audit record of the version p writes: its
// provenance, its keys with their checksums, never their content.
func (p *Plan) AuditRecord() server.AuditRecord {
	changes := make([]server.AuditChange, len(p.Changes))
	for i, ch := range p.Changes {
		changes[i] = server.AuditChange{Key: ch.Key, Op: ch.Op, Checksum: ch.Checksum}
	}
	by := server.ActorOf(p.Provenance)
	if by.Subject == "" {
		by.Subject = p.Author
	}
	return server.AuditRecord{Repo: p.Repo, At: p.At, Action: server.AuditWrite, By: by, Version: p.Version,
		Checksum: p.Checksum, Changes: changes}
}
