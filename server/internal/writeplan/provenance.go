package writeplan

import "github.com/teammem/teammem/server"

// ProvenanceColumns selects a revision's provenance, but for its subject
// (the revision's author), from the versions row joined as v: both stores
// join it with LEFT JOIN versions v ON v.repo = r.repo AND v.version =
// r.version. A version without a row (written before the versions table)
// reads as server.UnknownProvenance, as does one written before the
// provenance columns, whose defaults say the same.
const ProvenanceColumns = `coalesce(v.display_name, ''), coalesce(v.credential, '` + server.Unknown + `'),
	coalesce(v.surface, '` + server.Unknown + `'), coalesce(v.client, '` + server.Unknown + `'),
	coalesce(v.machine, ''), coalesce(v.head_commit, ''), coalesce(v.approved_by, ''), coalesce(v.proposal, 0)`

// ProvenanceDest returns where the ProvenanceColumns of a row scan into.
func ProvenanceDest(p *server.Provenance) []any {
	return []any{&p.DisplayName, &p.Credential, (*string)(&p.Surface), &p.Client, &p.Machine, &p.Commit, &p.ApprovedBy, &p.Proposal}
}

// VersionProvenance is the versions row's provenance columns, in the
// order ProvenanceColumns reads them: a store writes them with the
// version's checksum.
const VersionProvenance = `display_name, credential, surface, client, machine, head_commit, approved_by, proposal`

// ProvenanceValues returns a version's VersionProvenance values.
func ProvenanceValues(p server.Provenance) []any {
	return []any{p.DisplayName, p.Credential, string(p.Surface), p.Client, p.Machine, p.Commit, p.ApprovedBy, p.Proposal}
}
