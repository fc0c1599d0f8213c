package protocol

// PersonalMark starts the name of a personal repository (issue 27): the
// user's own memory of a repository, which only tokens of the user's
// subject read or write. It never occurs in a canonical slug.
const PersonalMark = "~"

// MyPersonalRepo is how a client names its user's personal memory of a
// canonical slug on the wire: "~/acme/api". The server resolves it to the
// token subject's own repository.
func MyPersonalRepo(slug string) string { return PersonalMark + "/" + slug }
