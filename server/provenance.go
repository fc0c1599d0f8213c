package server

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Provenance says who made a version and through what: stamped by the
// server on every write, the same for every key the write changed, and
// never taken from content. Subject, DisplayName and Credential come from
// the verified credential alone (Service.Put sets them from the
// Principal); Surface is the front door the write came in (the route),
// which a teammem agent may narrow with a claim (ClaimSurface); Client,
// Machine and Commit are what the writer says of itself, checked for
// shape (CheckMachine, CheckCommit, CleanClient) and never trusted for
// anything but display.
//
// The zero value is no provenance; a version written before provenance was
// recorded reads as UnknownProvenance. The audit chain and the review of
// proposals carry it as it is: a proposal's acceptance is a write whose
// provenance is the accepting caller's.
type Provenance struct {
	Subject     string  // the credential's subject: Revision.Author
	DisplayName string  // a person's name, when the credential carries one (SSO); "" otherwise
	Credential  string  // which credential: "token:<id>", "oidc:<id>", "session:<id>", "none", Unknown
	Surface     Surface // the front door
	Client      string  // the client and its version; "" when it named none
	Machine     string  // the host the agent runs on; "" when not sent
	Commit      string  // the checkout's HEAD when an agent pushed; "" when not sent
	// ApprovedBy and Proposal are set on the write that applied an
	// approved proposal: the reviewer's subject and the proposal's id. The
	// rest is then the proposal's author's provenance.
	ApprovedBy string
	Proposal   int64
}

// Unknown is what provenance says where nothing was recorded (versions
// written before provenance was).
const Unknown = "unknown"

// UnknownProvenance is the provenance of a version written before
// provenance was recorded: only its author is known.
func UnknownProvenance(subject string) Provenance {
	return Provenance{Subject: subject, Credential: Unknown, Surface: SurfaceUnknown, Client: Unknown}
}

// CredentialNone is the credential of a server run without
// authentication (--insecure-no-auth).
const CredentialNone = "none"

// MaxDisplayNameBytes bounds a display name.
const MaxDisplayNameBytes = 100

// CredentialOf names a credential of a kind ("token", "oidc", "session")
// by its id, as Principal.Credential holds it: "kind:id", or the kind
// alone when there is no id, or it is longer than 128 bytes or not
// printable ASCII (an OIDC issuer's jti is whatever the issuer made).
func CredentialOf(kind, id string) string {
	if id == "" || len(id) > 128 {
		return kind
	}
	for i := 0; i < len(id); i++ {
		if id[i] < 0x21 || id[i] > 0x7e {
			return kind
		}
	}
	return kind + ":" + id
}

// CleanDisplayName returns an identity provider's name for a person fit to
// show beside the subject: "" when it is longer than MaxDisplayNameBytes
// or holds a character CheckMachine refuses (a name that cannot be shown
// as sent is not shown at all).
func CleanDisplayName(s string) string {
	s = strings.TrimSpace(s)
	if len(s) > MaxDisplayNameBytes || !displayable(s) {
		return ""
	}
	return s
}

// Surface is the front door a write came in.
type Surface string

// Surfaces.
const (
	// SurfaceAgent is the team memory protocol's PUT: teammem-agent, the
	// stock Claude Code client, any client of the protocol.
	SurfaceAgent Surface = "agent"
	// SurfaceMCP is a tool call of /mcp, or of teammem-agent's own MCP
	// server (which writes through the PUT and says so).
	SurfaceMCP Surface = "mcp"
	// SurfaceREST is a write through the REST extensions under /api/v1.
	SurfaceREST Surface = "rest"
	// SurfaceWeb is the web UI.
	SurfaceWeb Surface = "web"
	// SurfaceSeed is `teammem-agent seed`.
	SurfaceSeed Surface = "seed"
	// SurfaceRestore puts back an old revision: the web UI's restore or
	// `teammem-agent restore`.
	SurfaceRestore Surface = "restore"
	// SurfaceConsolidation is the push of teammem-agent that carries a
	// consolidation's changes.
	SurfaceConsolidation Surface = "consolidation"
	// SurfaceUnknown is a version written before provenance was recorded.
	SurfaceUnknown Surface = Unknown
)

// Bounds of what a writer says of itself.
const (
	MaxClientBytes  = 200
	MaxMachineBytes = 128
)

// ClaimSurface parses the surface a teammem agent claims for a PUT of the
// team memory protocol (the Teammem-Surface header): "seed", "restore",
// "consolidation" or "mcp" narrow SurfaceAgent; "" is SurfaceAgent. The other surfaces are the
// server's own doors and cannot be claimed.
func ClaimSurface(s string) (Surface, error) {
	switch Surface(s) {
	case "":
		return SurfaceAgent, nil
	case SurfaceAgent, SurfaceSeed, SurfaceRestore, SurfaceConsolidation, SurfaceMCP:
		return Surface(s), nil
	}
	return "", invalidf(ReasonInvalidHeader, "Teammem-Surface %.40q is not one of agent, seed, restore, consolidation, mcp", s)
}

// CheckMachine refuses a machine name that is longer than MaxMachineBytes,
// not UTF-8, or holds a control, format (bidirectional controls included)
// or space character other than the ASCII space; "" (none sent) passes.
func CheckMachine(s string) error {
	if len(s) > MaxMachineBytes {
		return invalidf(ReasonInvalidHeader, "Teammem-Machine is %d bytes; at most %d are kept", len(s), MaxMachineBytes)
	}
	if !displayable(s) {
		return invalidf(ReasonInvalidHeader, "Teammem-Machine %.60q holds a control, format or bidirectional character", s)
	}
	return nil
}

// CheckCommit refuses a commit that is not 7 to 64 lowercase hexadecimal
// digits (an abbreviated or full SHA-1 or SHA-256 object name); ""
// passes.
func CheckCommit(s string) error {
	if s == "" {
		return nil
	}
	ok := len(s) >= 7 && len(s) <= 64
	for i := 0; ok && i < len(s); i++ {
		ok = s[i] >= '0' && s[i] <= '9' || s[i] >= 'a' && s[i] <= 'f'
	}
	if !ok {
		return invalidf(ReasonInvalidHeader, "Teammem-Commit %.80q is not a commit id (7 to 64 lowercase hex digits)", s)
	}
	return nil
}

// CleanClient makes what a client says of itself (a User-Agent, an MCP
// clientInfo) fit to keep and show: every control, format or
// bidirectional character, and every space but the ASCII one, becomes
// U+FFFD, invalid UTF-8 too, and it is cut to MaxClientBytes at a
// character boundary. A stock client is never refused for its
// User-Agent: it is recorded, made harmless.
func CleanClient(s string) string {
	var b strings.Builder
	for _, r := range strings.TrimSpace(s) {
		if !displayableRune(r) {
			r = utf8.RuneError
		}
		if b.Len()+utf8.RuneLen(r) > MaxClientBytes {
			break
		}
		b.WriteRune(r)
	}
	return b.String()
}

// check refuses claims a Service must not store (the HTTP layer checks
// them first, with the same functions).
func (p Provenance) check() error {
	if err := CheckMachine(p.Machine); err != nil {
		return err
	}
	if err := CheckCommit(p.Commit); err != nil {
		return err
	}
	if p.Client != CleanClient(p.Client) {
		return invalidf(ReasonInvalidHeader, "the client name %.60q is too long or holds a control character", p.Client)
	}
	return nil
}

// stamp returns the provenance of a write by by: the claims of p (or the
// agent surface when none is set) with the subject, display name and
// credential of the verified principal.
func (p Provenance) stamp(by Principal) Provenance {
	p.Subject, p.DisplayName, p.Credential = by.Subject, by.DisplayName, by.Credential
	if p.Surface == "" {
		p.Surface = SurfaceAgent
	}
	if p.Credential == "" {
		p.Credential = Unknown
	}
	return p
}

// String is the provenance in one line, for logs and terminals: subject
// (display name) via surface, client, on machine at commit.
func (p Provenance) String() string {
	var b strings.Builder
	b.WriteString(p.Subject)
	if p.DisplayName != "" {
		fmt.Fprintf(&b, " (%s)", p.DisplayName)
	}
	fmt.Fprintf(&b, " via %s", p.Surface)
	if p.Client != "" {
		fmt.Fprintf(&b, ", %s", p.Client)
	}
	if p.Machine != "" {
		fmt.Fprintf(&b, " on %s", p.Machine)
	}
	if p.Commit != "" {
		fmt.Fprintf(&b, " at %s", p.Commit)
	}
	if p.ApprovedBy != "" {
		fmt.Fprintf(&b, ", approved by %s (proposal #%d)", p.ApprovedBy, p.Proposal)
	}
	return b.String()
}

// displayable reports whether s is UTF-8 with no character displayableRune
// refuses.
func displayable(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, r := range s {
		if !displayableRune(r) {
			return false
		}
	}
	return true
}

// displayableRune refuses control and format characters (bidirectional
// controls, zero-width joiners), line and paragraph separators, and every
// space but the ASCII one, which could hide or reorder what a teammate
// reads.
func displayableRune(r rune) bool {
	switch {
	case r == utf8.RuneError, r == ' ':
		return r == ' '
	case unicode.IsControl(r), unicode.Is(unicode.Cf, r), unicode.IsSpace(r),
		unicode.Is(unicode.Zl, r), unicode.Is(unicode.Zp, r), unicode.Is(unicode.Co, r):
		return false
	}
	return unicode.IsPrint(r)
}
