package writeplan

// ProposalColumns are the columns of a proposals row both stores read, in
// the order they scan them.
const ProposalColumns = `id, repo, state, author, provenance, base_version, created_at, updated_at,
	decided_by, decided_at, comment, applied_version`
